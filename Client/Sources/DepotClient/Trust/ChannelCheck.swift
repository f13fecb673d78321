import Crypto
import DepotHTTP
import DepotManifest
import DepotSigning
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

    /// The release and serial of the last document accepted, and the root it was signed under.
    public struct Accepted: Sendable, Equatable {
        public var serial: Int64
        public var release: String
        /// The root version of the document; its serial is compared only under the same root.
        public var root: Int64?
        /// Without a root, the ids of the trusted keys that signed it (``signers(of:under:)``):
        /// its serial is compared only while one of them is still trusted.
        public var signers: Set<String>?

        public init(serial: Int64, release: String, root: Int64? = nil, signers: Set<String>? = nil) {
            self.serial = serial
            self.release = release
            self.root = root
            self.signers = signers
        }
    }

    /// What a client trusts to sign channel documents.
    public enum Trust: Sendable {
        /// Nothing: documents are not checked.
        case none
        /// Any one of these keys (a server without a root).
        case keys([Curve25519.Signing.PublicKey])
        /// A threshold of this root's channel keys, under this root.
        case root(RootDocument)

        /// What an app (or `depot sync`, `depot mirror`) configured: the root document it ships
        /// (signed, checked here), else these keys (base64, as `depot keygen` prints them), else
        /// nothing.
        public init(trustedKeys: [String], trustedRoot: Data?) throws(SyncError) {
            guard let trustedRoot else {
                self = trustedKeys.isEmpty ? .none : .keys(try trustedKeys.map { key throws(SyncError) in try ChannelCheck.publicKey(base64: key) })
                return
            }
            do {
                let root = try JSONDecoder().decode(RootDocument.self, from: trustedRoot)
                try root.checkFirst()
                self = .root(root)
            } catch {
                throw SyncError(.untrusted, "the trusted root is not valid: \(error)")
            }
        }
    }

    /// Whether `url` is the URL of the release `id`, a well-formed one.
    static func names(_ id: String, at url: String) -> Bool {
        (try? TreeObject.release(id))?.url == url
    }

    /// Checks `document`, polled at `channel`, at time `now` (seconds since 1970), trusting any
    /// one of `trustedKeys` (none: only its shape is checked).
    public static func check(
        _ document: ChannelDocument,
        channel: String,
        trustedKeys: [Curve25519.Signing.PublicKey],
        now: Int64,
        lastAccepted: Accepted?
    ) throws(SyncError) -> SignatureStatus {
        try check(document, channel: channel, trust: trustedKeys.isEmpty ? .none : .keys(trustedKeys), now: now, lastAccepted: lastAccepted)
    }

    /// Checks `document`, polled at `channel`, at time `now` (seconds since 1970).
    ///
    /// With no trust only its shape is checked. With keys, it must carry a signature by one of
    /// them over ``ChannelDocument/signedText``; under a root, it must name that root's version
    /// and carry signatures by a threshold of its channel keys, and the root must not have
    /// expired. Then it must not be past `expires`, and its serial must not be lower than the last
    /// accepted one under the same root (nor equal naming another release, or rollout): an edge cache or
    /// mirror replaying an old document cannot move the client back. A document under a newer
    /// root than the last one starts the serials afresh: that is how a new root recovers clients
    /// from a leaked key's high serial, or from a server restored from a backup.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for a malformed document, `.untrusted` for a refused one.
    public static func check(
        _ document: ChannelDocument,
        channel: String,
        trust: Trust,
        now: Int64,
        lastAccepted: Accepted?
    ) throws(SyncError) -> SignatureStatus {
        try checkShape(document, channel: channel)
        guard try checkSignatures(document, trust: trust, now: now) else { return .notChecked }
        let today = HTTPDate(secondsSince1970: now)
        guard let expires = HTTPDate(parsing: document.expires, now: today), expires.secondsSince1970 > now else {
            throw SyncError(.untrusted, "the channel document expired (\(document.expires))")
        }
        if let lastAccepted, floorApplies(lastAccepted, under: trust) { try checkFloor(document, lastAccepted: lastAccepted) }
        return .verified
    }

    /// The document's own form: its channel, the releases it names, its client versions, its
    /// rollout.
    private static func checkShape(_ document: ChannelDocument, channel: String) throws(SyncError) {
        guard document.channel == channel else {
            throw SyncError(.corrupt, "the channel document is for \(document.channel), not \(channel)")
        }
        guard Self.names(document.release, at: document.url)
        else {
            throw SyncError(.corrupt, "the channel document names no valid release")
        }
        let minimums =
            [document.minimumClientVersion, document.rollout?.minimumClientVersion] + (document.fallbacks ?? []).map(\.minimumClientVersion)
        if let bad = minimums.compactMap({ $0 }).first(where: { ClientVersion($0) == nil }) {
            throw SyncError(.corrupt, "the channel document names \(bad), which is no client version")
        }
        if let fallback = document.fallbacks?.first(where: { !Self.names($0.release, at: $0.url) }) {
            throw SyncError(.corrupt, "the channel document's fallback \(fallback.number) names no valid release")
        }
        if let rollout = document.rollout {
            guard Self.names(rollout.release, at: rollout.url), rollout.release != document.release else {
                throw SyncError(.corrupt, "the channel document's rollout names no valid release")
            }
            guard (0...100).contains(rollout.percent), !rollout.salt.isEmpty, rollout.salt.utf8.count <= 64 else {
                throw SyncError(.corrupt, "the channel document's rollout has a percentage outside 0–100 or no salt")
            }
        }
    }

    /// Checks the signatures `trust` asks for; `false` when it asks for none.
    private static func checkSignatures(_ document: ChannelDocument, trust: Trust, now: Int64) throws(SyncError) -> Bool {
        let today = HTTPDate(secondsSince1970: now)
        switch trust {
        case .none:
            return false
        case .keys(let trustedKeys):
            guard signers(of: document, under: trust)?.isEmpty == false else {
                throw SyncError(.untrusted, unsignedMessage(document, trusted: trustedKeys))
            }
        case .root(let root):
            guard let expires = HTTPDate(parsing: root.expires, now: today), expires.secondsSince1970 > now else {
                throw SyncError(
                    .untrusted,
                    "the root document (version \(root.version)) expired (\(root.expires)): the server must publish a new one"
                )
            }
            guard let version = document.root else { throw SyncError(.untrusted, "the channel document is not signed under a root") }
            guard version == root.version else {
                throw SyncError(
                    .untrusted,
                    version < root.version
                        ? "the channel document is signed under root \(version), older than the root \(root.version) trusted: a replay"
                        : "the channel document names root \(version), newer than the root \(root.version) held"
                )
            }
            do {
                try root.checkChannelSignatures(document)
            } catch {
                throw SyncError(.untrusted, error.message)
            }
        }
        return true
    }

    /// Why a document no trusted key signed is refused, naming the keys that signed it and
    /// those trusted, by id (``keyID(of:)``): a key mix-up is read off the message.
    static func unsignedMessage(_ document: ChannelDocument, trusted: [Curve25519.Signing.PublicKey]) -> String {
        // Ids as the document claims them: only well-formed ones are repeated.
        let signed = document.signatures.map { Self.isKeyID($0.keyID) ? $0.keyID : "(a malformed id)" }
        let signers = signed.isEmpty ? "it carries no signature" : "signed by key\(signed.count == 1 ? "" : "s") \(signed.joined(separator: ", "))"
        let trustedIDs = trusted.map(keyID(of:))
        return "the channel document is not signed by a trusted key: \(signers); trusted: \(trustedIDs.joined(separator: ", "))"
    }

    /// Whether `id` has the form of a key id: 16 lower-case hex digits.
    private static func isKeyID(_ id: String) -> Bool {
        id.utf8.count == 16 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The floor an accepted document sets: no older root, and under the same root no lower
    /// serial, nor the same serial naming another release.
    private static func checkFloor(_ document: ChannelDocument, lastAccepted: Accepted) throws(SyncError) {
        let (before, after) = (lastAccepted.root ?? 0, document.root ?? 0)
        guard after >= before else {
            throw SyncError(
                .untrusted,
                "the channel document is signed under root \(after), older than the root \(before) accepted before: a replay"
            )
        }
        if after == before {
            guard document.serial >= lastAccepted.serial else {
                throw SyncError(
                    .untrusted,
                    "the channel document's serial \(document.serial) is lower than the \(lastAccepted.serial) accepted before: a replay"
                )
            }
            // The release held may be the one a rollout or a fallback of that document gave
            // the install.
            guard document.serial > lastAccepted.serial || releases(namedBy: document).contains(lastAccepted.release) else {
                throw SyncError(.untrusted, "the channel document's serial \(document.serial) names another release than before")
            }
        }
    }

    /// Every release `document` may give an install: its release, its rollout's, its fallbacks'.
    static func releases(namedBy document: ChannelDocument) -> [String] {
        [document.release] + [document.rollout?.release].compactMap { $0 } + (document.fallbacks ?? []).map(\.release)
    }

    /// Under trusted keys, the ids of those whose signatures of `document` verify; `nil` under
    /// a root or none.
    public static func signers(of document: ChannelDocument, under trust: Trust) -> Set<String>? {
        guard case .keys(let trustedKeys) = trust else { return nil }
        let signed = document.signedText
        var signers = Set<String>()
        for signature in document.signatures {
            guard let key = trustedKeys.first(where: { keyID(of: $0) == signature.keyID }),
                Ed25519.verify(key: key, signature: signature.signature, message: signed)
            else { continue }
            signers.insert(signature.keyID)
        }
        return signers
    }

    /// Whether the serial of the document accepted before is a floor under `trust`: under
    /// trusted keys, only while a key that signed it is still trusted. An app that stops
    /// trusting a leaked key is then no longer pinned by the high serial that key signed.
    static func floorApplies(_ accepted: Accepted, under trust: Trust) -> Bool {
        guard case .keys(let trustedKeys) = trust, let signers = accepted.signers else { return true }
        return !signers.isDisjoint(with: trustedKeys.map(keyID(of:)))
    }

    /// The id a channel document gives a key: the first 16 hex digits of the SHA-256 of its raw
    /// 32 bytes.
    public static func keyID(of key: Curve25519.Signing.PublicKey) -> String {
        Ed25519.keyID(of: key)
    }

    /// A public key as `depot keygen` prints it: base64 of the raw 32 bytes.
    public static func publicKey(base64: String) throws(SyncError) -> Curve25519.Signing.PublicKey {
        guard let key = Ed25519.publicKey(base64: base64) else {
            throw SyncError(.untrusted, "not an Ed25519 public key (base64 of 32 bytes): \(base64)")
        }
        return key
    }
}
