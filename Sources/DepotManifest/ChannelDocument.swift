/// What a client polls: the release a channel points to, signed. Served at `/channels/{name}`,
/// with a strong ETag and `Cache-Control: no-cache`, so an unchanged poll costs one 304.
///
/// A client configured with trusted public keys refuses a document whose signature does not
/// verify, one past `expires`, and one whose `serial` is lower than the last it accepted: an
/// edge cache or mirror can neither feed it other content nor hold it on an old release for
/// longer than the expiry (the freeze and rollback attacks of The Update Framework).
public struct ChannelDocument: Codable, Hashable, Sendable {
    public var channel: String
    /// The release id: the SHA-256 of the release document at `url`.
    public var release: String
    public var url: String
    /// The release's number (``ReleaseDocument/number``), for people.
    public var number: Int64
    /// Grows with every move of the channel: a publish, a promote or a rollback.
    public var serial: Int64
    /// After this time (IMF-fixdate) a client refuses the document; the server re-signs well
    /// before.
    public var expires: String
    /// The version of the root (``RootDocument``) the document is signed under, when the server
    /// has one: its serial is compared only with serials under the same root.
    public var root: Int64?
    /// Ed25519 signatures of ``signedText``, one per signing key.
    public var signatures: [Signature]

    public init(
        channel: String,
        release: String,
        number: Int64,
        serial: Int64,
        expires: String,
        root: Int64? = nil,
        signatures: [Signature] = []
    ) {
        self.channel = channel
        self.release = release
        self.url = "/releases/\(release)"
        self.number = number
        self.serial = serial
        self.expires = expires
        self.root = root
        self.signatures = signatures
    }

    /// One signature: the key's id and the signature, base64.
    public struct Signature: Codable, Hashable, Sendable {
        /// The first 16 hex digits of the SHA-256 of the raw 32-byte public key.
        public var keyID: String
        public var signature: String

        public init(keyID: String, signature: String) {
            self.keyID = keyID
            self.signature = signature
        }
    }

    /// The id of a signing key: the first 16 hex digits of the SHA-256 of its raw 32 bytes.
    /// `sha256` is the caller's (this module has no cryptography), so server and client share
    /// the rule.
    public static func keyID(ofRawKey key: [UInt8], sha256: ([UInt8]) -> [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let hex = sha256(key).prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The bytes signed: every field that decides what a client does, one per line, in a fixed
    /// order. Signing this text rather than the JSON means neither side needs a canonical JSON.
    /// A document under a root says so (`depot-channel-v2` and its `root` line); one without is
    /// signed as before roots.
    public var signedText: [UInt8] {
        let lines = [
            root == nil ? "depot-channel-v1" : "depot-channel-v2",
            "channel \(channel)",
            "release \(release)",
            "url \(url)",
            "number \(number)",
            "serial \(serial)",
            "expires \(expires)",
        ]
        return Array((lines + (root.map { ["root \($0)"] } ?? [])).map { $0 + "\n" }.joined().utf8)
    }
}

/// The rule for channel names: 1 to 64 of `a-z`, `0-9` and `-`, so a name is safe in a URL, a
/// file name and a log line as it is.
public enum ChannelName {
    /// The channel `PUT /v1/files/…`, `/manifest.json` and `/files/…` use.
    public static let `default` = "stable"

    /// Why `name` is not a channel name, or `nil` when it is one.
    public static func problem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "a channel name has 1 to 64 characters" }
        guard name.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }) else {
            return "a channel name has only a-z, 0-9 and -"
        }
        return nil
    }
}
