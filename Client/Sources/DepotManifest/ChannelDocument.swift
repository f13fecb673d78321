/// What a client polls: the release a channel points to, signed. Served at `/channels/{name}`,
/// with a strong ETag and `Cache-Control: max-age=0, s-maxage=1`, so an unchanged poll costs one 304.
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
    /// Whether ``release`` is critical: an app should apply it at once.
    public var critical: Bool?
    /// The lowest app version (``ClientVersion``) that can use ``release``.
    public var minimumClientVersion: String?
    /// A staged rollout of a newer release, when one is under way: ``release`` is then the release
    /// it replaces, which every client outside the rollout keeps or gets.
    public var rollout: Rollout?
    /// Earlier releases of the channel for apps too old for ``release``, newest first, each
    /// needing a lower version than the one before: such an app takes the first it can use.
    public var fallbacks: [Fallback]?
    /// Ed25519 signatures of ``signedText``, one per signing key.
    public var signatures: [Signature]

    public init(
        channel: String,
        release: String,
        number: Int64,
        serial: Int64,
        expires: String,
        root: Int64? = nil,
        critical: Bool? = nil,
        minimumClientVersion: String? = nil,
        rollout: Rollout? = nil,
        fallbacks: [Fallback]? = nil,
        signatures: [Signature] = []
    ) {
        self.channel = channel
        self.release = release
        self.url = TreeObject.url(ofRelease: release)
        self.number = number
        self.serial = serial
        self.expires = expires
        self.root = root
        self.critical = critical
        self.minimumClientVersion = minimumClientVersion
        self.rollout = rollout
        self.fallbacks = fallbacks
        self.signatures = signatures
    }

    /// An earlier release for apps older than a newer one needs.
    public struct Fallback: Codable, Hashable, Sendable {
        public var release: String
        public var url: String
        public var number: Int64
        public var minimumClientVersion: String?

        public init(release: String, number: Int64, minimumClientVersion: String?) {
            self.release = release
            self.url = TreeObject.url(ofRelease: release)
            self.number = number
            self.minimumClientVersion = minimumClientVersion
        }
    }

    /// A release reaching a share of a channel's installs: each install hashes its own random
    /// id with ``salt`` into a bucket from 0 to 99 and takes ``release`` when its bucket is below
    /// ``percent``. Every install gets the same document, so caches keep one object per channel;
    /// raising the percentage with the same salt never moves an install back.
    public struct Rollout: Codable, Hashable, Sendable {
        /// The id of the release rolled out.
        public var release: String
        public var url: String
        /// Its number, for people.
        public var number: Int64
        /// The share of installs that take it: 0 to 100.
        public var percent: Int
        /// Hex digits chosen at random when the rollout starts, so that each rollout picks its
        /// own installs.
        public var salt: String
        /// The rolled-out release's ``ChannelDocument/critical`` and
        /// ``ChannelDocument/minimumClientVersion``.
        public var critical: Bool?
        public var minimumClientVersion: String?

        public init(release: String, number: Int64, percent: Int, salt: String, critical: Bool? = nil, minimumClientVersion: String? = nil) {
            self.release = release
            self.url = TreeObject.url(ofRelease: release)
            self.number = number
            self.percent = percent
            self.salt = salt
            self.critical = critical
            self.minimumClientVersion = minimumClientVersion
        }
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
    /// order, each value escaped (``SignedText``) so that the text names exactly these fields.
    /// Signing this text rather than the JSON means neither side needs a canonical JSON.
    /// A document under a root says so (`depot-channel-v2` and its `root` line); one without is
    /// signed as before roots. A document with a rollout, a critical release, a minimum client
    /// version or fallbacks is `depot-channel-v3` and signs their lines too: a client that does
    /// not know them refuses it rather than trust half of it.
    public var signedText: [UInt8] {
        let extended = rollout != nil || critical != nil || minimumClientVersion != nil || fallbacks != nil
        var text = SignedText()
        text.line(extended ? "depot-channel-v3" : root == nil ? "depot-channel-v1" : "depot-channel-v2")
        text.line("channel", channel)
        text.line("release", release)
        text.line("url", url)
        text.line("number", "\(number)")
        text.line("serial", "\(serial)")
        text.line("expires", expires)
        if let root { text.line("root", "\(root)") }
        if let critical { text.line("critical", "\(critical)") }
        if let minimumClientVersion { text.line("minimum-client-version", minimumClientVersion) }
        if let rollout {
            text.line("rollout-release", rollout.release)
            text.line("rollout-url", rollout.url)
            text.line("rollout-number", "\(rollout.number)")
            text.line("rollout-percent", "\(rollout.percent)")
            text.line("rollout-salt", rollout.salt)
            if let critical = rollout.critical { text.line("rollout-critical", "\(critical)") }
            if let minimum = rollout.minimumClientVersion { text.line("rollout-minimum-client-version", minimum) }
        }
        for fallback in fallbacks ?? [] {
            text.line("fallback", values: [fallback.release, fallback.url, "\(fallback.number)", fallback.minimumClientVersion])
        }
        return text.bytes
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
