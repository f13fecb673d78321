/// The reply to `PUT /v1/files/{path}`: the version the publish made, or the one the path held
/// already with the same content (`unchanged`).
public struct PublishReply: Codable, Sendable, Equatable {
    public var path: String
    public var version: Int64
    public var size: Int64
    public var sha256: String
    public var md5: String
    /// The strong entity tag the file is served with.
    public var etag: String
    /// The gzip variant's size, when there is one.
    public var gzipSize: Int64?
    public var unchanged: Bool
    /// The default channel's serial after the publish.
    public var serial: Int64

    public init(
        path: String,
        version: Int64,
        size: Int64,
        sha256: String,
        md5: String,
        etag: String,
        gzipSize: Int64?,
        unchanged: Bool,
        serial: Int64
    ) {
        self.path = path
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.md5 = md5
        self.etag = etag
        self.gzipSize = gzipSize
        self.unchanged = unchanged
        self.serial = serial
    }
}
