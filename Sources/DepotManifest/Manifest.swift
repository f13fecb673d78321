/// The document clients poll at `/manifest.json`: every live file with what a client needs to
/// decide whether to download it, and from where.
///
/// Shared by the server, which writes it, and `DepotClient`, which reads it; it depends on
/// nothing but the standard library so that both can use it.
public struct Manifest: Codable, Hashable, Sendable {
    /// Grows by at least one with every publish or unpublish.
    public var serial: Int64
    /// When this manifest was generated (IMF-fixdate).
    public var generatedAt: String
    /// The live files, sorted by path.
    public var files: [Entry]

    public init(serial: Int64, generatedAt: String, files: [Entry]) {
        self.serial = serial
        self.generatedAt = generatedAt
        self.files = files
    }

    /// One live file.
    public struct Entry: Codable, Hashable, Sendable {
        /// The logical path, e.g. `db/catalog.sqlite`.
        public var path: String
        /// Its version number; each publish of new content adds one.
        public var version: Int64
        public var size: Int64
        /// Lower-case hex SHA-256 of the content.
        public var sha256: String
        /// Lower-case hex MD5 of the content.
        public var md5: String
        /// The strong ETag `/files/{path}` answers with for the identity encoding.
        public var etag: String
        /// The `Last-Modified` of `/files/{path}` (IMF-fixdate): the publish time.
        public var lastModified: String
        public var contentType: String
        /// Where the latest version is served, with content negotiation: `/files/{path}`.
        public var url: String
        /// The immutable URL of exactly these bytes: `/blobs/{sha256}`.
        public var blob: String
        /// The gzip variant, when one is stored.
        public var gzip: Gzip?
        /// Patches from earlier versions to this one; absent when there are none (yet: they are
        /// made in the background after a publish).
        public var deltas: [Delta]?

        public init(
            path: String,
            version: Int64,
            size: Int64,
            sha256: String,
            md5: String,
            etag: String,
            lastModified: String,
            contentType: String,
            url: String,
            blob: String,
            gzip: Gzip?,
            deltas: [Delta]? = nil
        ) {
            self.path = path
            self.version = version
            self.size = size
            self.sha256 = sha256
            self.md5 = md5
            self.etag = etag
            self.lastModified = lastModified
            self.contentType = contentType
            self.url = url
            self.blob = blob
            self.gzip = gzip
            self.deltas = deltas
        }
    }

    /// A patch to an entry's content from earlier content: gzip-compressed RFC 3284 VCDIFF
    /// (`application/gzip`) at an immutable URL.
    public struct Delta: Codable, Hashable, Sendable {
        /// Lower-case hex SHA-256 of the content the patch applies to.
        public var from: String
        /// `/deltas/{from}/{to}`.
        public var url: String
        /// The length of the gzip bytes.
        public var size: Int64
        /// Lower-case hex SHA-256 of the gzip bytes.
        public var sha256: String

        public init(from: String, url: String, size: Int64, sha256: String) {
            self.from = from
            self.url = url
            self.size = size
            self.sha256 = sha256
        }
    }

    /// A gzip variant: plain `application/gzip` bytes at an immutable URL.
    public struct Gzip: Codable, Hashable, Sendable {
        /// `/blobs/{sha256}.gz`, where `sha256` is the identity content's.
        public var url: String
        public var size: Int64
        /// Lower-case hex SHA-256 of the gzip bytes.
        public var sha256: String

        public init(url: String, size: Int64, sha256: String) {
            self.url = url
            self.size = size
            self.sha256 = sha256
        }
    }
}
