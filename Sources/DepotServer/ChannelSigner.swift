import Crypto
import DepotHTTP
import DepotManifest
import Foundation

/// Signs channel documents with the server's Ed25519 key (`channels.signingKeyFile`), and says
/// until when a document is valid.
///
/// The expiry is a function of the time, not of when a document was made: it steps every half
/// validity, to between one half and one whole validity ahead. With Ed25519's deterministic
/// signatures, a channel's document is then the same bytes, and the same ETag, across reloads and
/// restarts, and changes only when the channel moves or the expiry steps.
public struct ChannelSigner: Sendable {
    public let key: Curve25519.Signing.PrivateKey?
    public let validity: Duration

    public init(key: Curve25519.Signing.PrivateKey? = nil, validity: Duration = .seconds(604_800)) {
        self.key = key
        self.validity = validity
    }

    /// The id clients see for a public key: the first 16 hex digits of its SHA-256.
    public static func keyID(of publicKey: Curve25519.Signing.PublicKey) -> String {
        ChannelDocument.keyID(ofRawKey: Array(publicKey.rawRepresentation), sha256: { Array(SHA256.hash(data: $0)) })
    }

    /// The expiry of a document made at `now` (seconds since 1970).
    func expiry(now: Int64) -> Int64 {
        let half = max(1, validity.components.seconds / 2)
        return (now / half) * half + 2 * half
    }

    /// The document of `channel`, signed when there is a key.
    func document(channel: String, release: String, number: Int64, serial: Int64, expires: String) throws -> ChannelDocument {
        var document = ChannelDocument(channel: channel, release: release, number: number, serial: serial, expires: expires)
        if let key {
            let signature = try key.signature(for: Data(document.signedText))
            document.signatures = [.init(keyID: Self.keyID(of: key.publicKey), signature: signature.base64EncodedString())]
        }
        return document
    }

    /// Reads a private key file written by `depot keygen`: the raw 32-byte key in base64, on one
    /// line.
    public static func readKey(file: String) throws -> Curve25519.Signing.PrivateKey {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigurationError("channels.signingKeyFile \(file) cannot be read")
        }
        guard let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32,
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw ConfigurationError(
                "channels.signingKeyFile \(file) does not hold an Ed25519 private key (32 bytes, base64): make one with depot keygen"
            )
        }
        return key
    }
}
