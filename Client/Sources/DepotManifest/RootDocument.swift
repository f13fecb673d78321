/// The root of trust of signed channels, as The Update Framework's root role: which keys may
/// sign channel documents and how many of them must (k of n), and which keys may sign the next
/// root and how many. Served at `/roots/{version}.json`, immutable.
///
/// An app ships root 1 (or a later one). A client walks the chain to the newest root a channel
/// document names: each root must carry the signatures of a threshold of the previous root's
/// root keys and of its own. Root keys stay off the server (`depot root init|sign|rotate` run
/// where they are); the server holds only channel keys. A new root replaces a lost or leaked
/// channel key, and a client's memory of serials is scoped to the root version, so a new root
/// also recovers clients pinned by a document a leaked key signed with a high serial, or by a
/// server restored from a backup whose serials start lower.
public struct RootDocument: Codable, Hashable, Sendable {
    /// The layout of the document; this type reads and writes 1.
    public var format: Int
    /// 1, 2, 3…: each root is signed by the one before.
    public var version: Int64
    /// After this time (IMF-fixdate) a client refuses the root, and so every channel document.
    public var expires: String
    /// The public keys it names, by id (``ChannelDocument/keyID(ofRawKey:sha256:)``): base64 of
    /// the raw 32-byte Ed25519 key.
    public var keys: [String: String]
    /// Who signs the next root.
    public var root: Role
    /// Who signs channel documents.
    public var channels: Role
    /// Ed25519 signatures of ``signedText``.
    public var signatures: [ChannelDocument.Signature]

    public static let currentFormat = 1

    /// A set of keys, and how many of them must sign.
    public struct Role: Codable, Hashable, Sendable {
        public var keyIDs: [String]
        public var threshold: Int

        public init(keyIDs: [String], threshold: Int) {
            self.keyIDs = keyIDs
            self.threshold = threshold
        }
    }

    public init(version: Int64, expires: String, keys: [String: String], root: Role, channels: Role, signatures: [ChannelDocument.Signature] = []) {
        self.format = Self.currentFormat
        self.version = version
        self.expires = expires
        self.keys = keys
        self.root = root
        self.channels = channels
        self.signatures = signatures
    }

    /// The bytes signed: every field, one a line, keys and roles in sorted order, each value
    /// escaped (``SignedText``), so neither side needs a canonical JSON.
    public var signedText: [UInt8] {
        var text = SignedText()
        text.line("depot-root-v1")
        text.line("version", "\(version)")
        text.line("expires", expires)
        for id in keys.keys.sorted() { text.line("key", values: [id, keys[id]!]) }
        text.line("root", values: ["\(root.threshold)"] + root.keyIDs.sorted())
        text.line("channels", values: ["\(channels.threshold)"] + channels.keyIDs.sorted())
        return text.bytes
    }

    /// Checks an Ed25519 signature: `(public key in base64, signature in base64, message)`. The
    /// caller's, as this module has no cryptography; server and client pass the same.
    public typealias Verify = (String, String, [UInt8]) -> Bool
    /// The id of a public key given in base64 (``ChannelDocument/keyID(ofRawKey:sha256:)``), or
    /// `nil` when it is not a 32-byte key. The caller's, as ``Verify``.
    public typealias KeyID = (String) -> String?

    /// Why a root or a document signed under it is refused.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public let message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// The ids of the distinct keys of `role` that signed `text` among `signatures`.
    public func signers(of text: [UInt8], signatures: [ChannelDocument.Signature], role: Role, verify: Verify) -> Set<String> {
        var signers = Set<String>()
        for signature in signatures where role.keyIDs.contains(signature.keyID) && !signers.contains(signature.keyID) {
            guard let key = keys[signature.keyID] else { continue }
            if verify(key, signature.signature, text) { signers.insert(signature.keyID) }
        }
        return signers
    }

    /// Checks the root's shape: the format, thresholds between 1 and the keys of their role, and
    /// every key id the id of its key.
    public func checkShape(keyID: KeyID) throws(Problem) {
        guard format == Self.currentFormat else { throw Problem("root \(version) has format \(format), which this version does not read") }
        guard version >= 1 else { throw Problem("a root's version starts at 1") }
        for (name, role) in [("root", root), ("channels", channels)] {
            guard Set(role.keyIDs).count == role.keyIDs.count, (1...max(1, role.keyIDs.count)).contains(role.threshold), !role.keyIDs.isEmpty else {
                throw Problem("root \(version): the \(name) role needs 1 to \(role.keyIDs.count) of its keys")
            }
            guard role.keyIDs.allSatisfy({ keys[$0] != nil }) else { throw Problem("root \(version): the \(name) role names a key it does not list") }
        }
        for (id, key) in keys {
            guard keyID(key) == id else {
                throw Problem("root \(version): the key \(id) is not an Ed25519 public key with that id")
            }
        }
    }

    /// Checks that this root, as the first one trusted, is well formed and signed by a threshold
    /// of its own root keys.
    public func checkFirst(verify: Verify, keyID: KeyID) throws(Problem) {
        try checkShape(keyID: keyID)
        let signers = signers(of: signedText, signatures: signatures, role: root, verify: verify)
        guard signers.count >= root.threshold else {
            throw Problem("root \(version) is signed by \(signers.count) of its root keys; it needs \(root.threshold)")
        }
    }

    /// Checks that `next` may follow this root: version one higher, signed by a threshold of this
    /// root's root keys and by a threshold of its own.
    public func checkNext(_ next: RootDocument, verify: Verify, keyID: KeyID) throws(Problem) {
        guard next.version == version + 1 else {
            throw Problem("the root served as version \(version + 1) says it is version \(next.version)")
        }
        try next.checkShape(keyID: keyID)
        let text = next.signedText
        let byPrevious = signers(of: text, signatures: next.signatures, role: root, verify: verify)
        guard byPrevious.count >= root.threshold else {
            throw Problem("root \(next.version) is signed by \(byPrevious.count) of root \(version)'s root keys; it needs \(root.threshold)")
        }
        let byItself = next.signers(of: text, signatures: next.signatures, role: next.root, verify: verify)
        guard byItself.count >= next.root.threshold else {
            throw Problem("root \(next.version) is signed by \(byItself.count) of its own root keys; it needs \(next.root.threshold)")
        }
    }

    /// Checks that `document` is signed by a threshold of this root's channel keys.
    public func checkChannelSignatures(_ document: ChannelDocument, verify: Verify) throws(Problem) {
        let signers = signers(of: document.signedText, signatures: document.signatures, role: channels, verify: verify)
        guard signers.count >= channels.threshold else {
            throw Problem(
                "the channel document is signed by \(signers.count) of root \(version)'s channel keys; it needs \(channels.threshold)"
            )
        }
    }
}
