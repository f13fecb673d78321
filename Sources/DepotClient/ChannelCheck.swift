import Crypto
import DepotHTTP
import DepotManifest
import Foundation

/// Whether a channel document may be believed: the rules a client applies before it follows a
/// document to a release (docs/releases.md). Pure, so that each rule is tested as a table.
public enum ChannelCheck {
    /// How a sync judged the channel document it followed.
    public enum SignatureStatus: String, Sendable, Codable {
        /// Signed by a trusted key, not expired, and not older than the last one accepted.
        case verified
        /// The client trusts no key, so the document was not checked (as before releases).
        case notChecked
    }

    /// The release and serial of the last document accepted.
    public struct Accepted: Sendable, Equatable {
        public var serial: Int64
        public var release: String

        public init(serial: Int64, release: String) {
            self.serial = serial
            self.release = release
        }
    }

    /// Checks `document`, polled at `channel`, at time `now` (seconds since 1970).
    ///
    /// With no trusted keys only its shape is checked. With keys, it must also carry a signature
    /// by one of them over ``ChannelDocument/signedText``, must not be past `expires`, and its
    /// serial must not be lower than the last accepted one (nor equal with another release): an
    /// edge cache or mirror replaying an old document cannot move the client back.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for a malformed document, `.untrusted` for a refused one.
    public static func check(
        _ document: ChannelDocument,
        channel: String,
        trustedKeys: [Curve25519.Signing.PublicKey],
        now: Int64,
        lastAccepted: Accepted?
    ) throws(SyncError) -> SignatureStatus {
        guard document.channel == channel else {
            throw SyncError(.corrupt, "the channel document is for \(document.channel), not \(channel)")
        }
        guard ContentAddress.isSHA256(document.release), document.url == "/releases/\(document.release)"
        else {
            throw SyncError(.corrupt, "the channel document names no valid release")
        }
        guard !trustedKeys.isEmpty else { return .notChecked }
        let signed = Data(document.signedText)
        let verified = document.signatures.contains { signature in
            guard let key = trustedKeys.first(where: { keyID(of: $0) == signature.keyID }),
                let bytes = Data(base64Encoded: signature.signature)
            else { return false }
            return key.isValidSignature(bytes, for: signed)
        }
        guard verified else { throw SyncError(.untrusted, "the channel document is not signed by a trusted key") }
        guard let expires = HTTPDate(parsing: document.expires, now: HTTPDate(secondsSince1970: now)), expires.secondsSince1970 > now else {
            throw SyncError(.untrusted, "the channel document expired (\(document.expires))")
        }
        if let lastAccepted {
            guard document.serial >= lastAccepted.serial else {
                throw SyncError(
                    .untrusted,
                    "the channel document's serial \(document.serial) is lower than the \(lastAccepted.serial) accepted before: a replay"
                )
            }
            guard document.serial > lastAccepted.serial || document.release == lastAccepted.release else {
                throw SyncError(.untrusted, "the channel document's serial \(document.serial) names another release than before")
            }
        }
        return .verified
    }

    /// The id a channel document gives a key: the first 16 hex digits of the SHA-256 of its raw
    /// 32 bytes.
    public static func keyID(of key: Curve25519.Signing.PublicKey) -> String {
        ChannelDocument.keyID(ofRawKey: Array(key.rawRepresentation), sha256: { Array(SHA256.hash(data: $0)) })
    }

    /// A public key as `depot keygen` prints it: base64 of the raw 32 bytes.
    public static func publicKey(base64: String) throws(SyncError) -> Curve25519.Signing.PublicKey {
        guard let raw = Data(base64Encoded: base64.trimmingCharacters(in: .whitespaces)), raw.count == 32,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else { throw SyncError(.untrusted, "not an Ed25519 public key (base64 of 32 bytes): \(base64)") }
        return key
    }
}
