/// The reply to `POST /v1/releases`.
public struct CommitReply: Codable, Sendable, Equatable {
    /// A version the commit made.
    public struct FileVersion: Codable, Sendable, Equatable {
        public var path: String
        public var version: Int64
        public var size: Int64
        public var sha256: String
        public var gzipSize: Int64?

        public init(path: String, version: Int64, size: Int64, sha256: String, gzipSize: Int64?) {
            self.path = path
            self.version = version
            self.size = size
            self.sha256 = sha256
            self.gzipSize = gzipSize
        }
    }

    /// The release the channel is on after the commit; `nil` only for a channel with none.
    public var release: ReleaseInfo?
    /// Whether the commit made a new release (else nothing changed).
    public var created: Bool
    public var channel: String
    public var serial: Int64
    /// The versions the commit made: only what changed, however many files it listed.
    public var files: [FileVersion]
    /// How many listed files the channel held already.
    public var unchanged: Int
    public var removed: [String]

    public init(
        release: ReleaseInfo?,
        created: Bool,
        channel: String,
        serial: Int64,
        files: [FileVersion],
        unchanged: Int,
        removed: [String]
    ) {
        self.release = release
        self.created = created
        self.channel = channel
        self.serial = serial
        self.files = files
        self.unchanged = unchanged
        self.removed = removed
    }
}

extension CommitReply {
    /// Writes the reply as its JSON (the form `Decodable` reads), a file at a time: the reply to a
    /// commit of 100,000 files is megabytes, and `JSONEncoder` would build its whole tree first.
    public func encode(into stream: inout JSONStream) throws {
        stream.raw("{")
        try stream.key("channel", channel)
        try stream.key("created", created)
        stream.raw("\"files\":")
        try stream.array(files)
        stream.raw(",")
        if let release { try stream.key("release", release) }
        stream.raw("\"removed\":")
        try stream.array(removed)
        stream.raw(",")
        try stream.key("serial", serial)
        try stream.key("unchanged", unchanged, last: true)
        stream.raw("}")
    }
}
