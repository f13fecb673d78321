import Crypto
import DepotManifest
import Foundation

/// Ed25519 as Depot's documents use it: keys and signatures in base64, key ids as
/// ``ChannelDocument/keyID(ofRawKey:sha256:)`` says. Every signature Depot makes or checks goes
/// through here (the server, the client and the CLI alike), so they judge a signature alike; the
/// key file's format is ``SigningKeyFile``'s.
public enum Ed25519 {
    /// The id of `key`: the first 16 hex digits of the SHA-256 of its raw 32 bytes.
    public static func keyID(of key: Curve25519.Signing.PublicKey) -> String {
        ChannelDocument.keyID(ofRawKey: Array(key.rawRepresentation), sha256: { Array(SHA256.hash(data: $0)) })
    }

    /// A public key as `depot keygen` prints it: base64 of the raw 32 bytes; `nil` otherwise.
    public static func publicKey(base64: String) -> Curve25519.Signing.PublicKey? {
        guard let raw = Data(base64Encoded: base64.trimmingCharacters(in: .whitespaces)), raw.count == 32 else { return nil }
        return try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
    }

    /// The id of a public key given in base64, or `nil` when it is not one (``RootDocument/KeyID``).
    public static func keyID(base64: String) -> String? {
        publicKey(base64: base64).map(keyID(of:))
    }

    /// Whether `signature` (base64) is `key`'s (base64) over `message` (``RootDocument/Verify``).
    public static func verify(key: String, signature: String, message: [UInt8]) -> Bool {
        guard let key = publicKey(base64: key) else { return false }
        return verify(key: key, signature: signature, message: message)
    }

    /// Whether `signature` (base64) is `key`'s over `message`.
    public static func verify(key: Curve25519.Signing.PublicKey, signature: String, message: [UInt8]) -> Bool {
        guard let bytes = Data(base64Encoded: signature) else { return false }
        return key.isValidSignature(bytes, for: Data(message))
    }

    /// `key`'s signature over `message`, as a document lists it.
    public static func sign(_ message: [UInt8], with key: Curve25519.Signing.PrivateKey) throws -> ChannelDocument.Signature {
        .init(keyID: keyID(of: key.publicKey), signature: try key.signature(for: Data(message)).base64EncodedString())
    }
}

extension RootDocument {
    /// ``checkFirst(verify:keyID:)`` with Ed25519.
    public func checkFirst() throws(Problem) {
        try checkFirst(verify: Ed25519.verify, keyID: Ed25519.keyID(base64:))
    }

    /// ``checkNext(_:verify:keyID:)`` with Ed25519.
    public func checkNext(_ next: RootDocument) throws(Problem) {
        try checkNext(next, verify: Ed25519.verify, keyID: Ed25519.keyID(base64:))
    }

    /// ``checkChannelSignatures(_:verify:)`` with Ed25519.
    public func checkChannelSignatures(_ document: ChannelDocument) throws(Problem) {
        try checkChannelSignatures(document, verify: Ed25519.verify)
    }

    /// Checks a chain of roots, oldest first, as a server loads it: the first self-signed, each
    /// next one signed by the one before. Returns the newest.
    public static func checkChain(_ roots: [RootDocument]) throws(Problem) -> RootDocument {
        guard var newest = roots.first else { throw Problem("there is no root") }
        try newest.checkFirst()
        for next in roots.dropFirst() {
            try newest.checkNext(next)
            newest = next
        }
        return newest
    }
}
