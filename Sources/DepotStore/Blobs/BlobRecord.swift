/// What the store knows about one stored piece of content, keyed by its SHA-256.
public struct BlobRecord: Hashable, Sendable, Codable {
    /// Lower-case hex SHA-256 of the content; also its name in the store.
    public let sha256: String
    /// Lower-case hex MD5 of the content, for clients that only check MD5.
    public let md5: String
    /// The content's length in bytes.
    public let size: Int64
    /// The stored gzip variant, when compressing saved enough to keep one.
    public let gzip: GzipVariant?

    public init(sha256: String, md5: String, size: Int64, gzip: GzipVariant?) {
        self.sha256 = sha256
        self.md5 = md5
        self.size = size
        self.gzip = gzip
    }

    /// The gzip-encoded bytes of a blob, stored beside it.
    public struct GzipVariant: Hashable, Sendable, Codable {
        /// Lower-case hex SHA-256 of the gzip bytes.
        public let sha256: String
        /// The length of the gzip bytes.
        public let size: Int64

        public init(sha256: String, size: Int64) {
            self.sha256 = sha256
            self.size = size
        }
    }
}
