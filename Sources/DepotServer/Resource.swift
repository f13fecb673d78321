import DepotHTTP
import DepotStore
import _NIOFileSystem

/// Something Depot serves at a URL: a stored blob with its metadata, validators rendered once.
public struct Resource: Sendable {
    /// One stored encoding of the resource.
    public struct Variant: Sendable {
        /// The file that holds the bytes.
        public let file: FilePath
        public let length: Int64
        /// Strong, from the SHA-256 of exactly these bytes.
        public let entityTag: EntityTag
        let entityTagField: String

        public init(file: FilePath, length: Int64, sha256: String) {
            self.file = file
            self.length = length
            self.entityTag = EntityTag(opaqueTag: sha256)!
            self.entityTagField = entityTag.description
        }
    }

    public let identity: Variant
    public let gzip: Variant?
    public let contentType: String
    public let lastModified: HTTPDate
    public let lastModifiedIsStrong: Bool
    public let cacheControl: String?
    let lastModifiedField: String

    public init(identity: Variant, gzip: Variant?, contentType: String, lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) {
        self.identity = identity
        self.gzip = gzip
        self.contentType = contentType
        self.lastModified = lastModified
        self.lastModifiedIsStrong = lastModifiedIsStrong
        self.cacheControl = cacheControl
        self.lastModifiedField = lastModified.imfFixdate
    }

    /// A resource served from `blob`: the identity variant's ETag is the content's SHA-256, the
    /// gzip variant's is the SHA-256 of the gzip bytes, so the two never share a tag.
    public init(
        blob: BlobRecord,
        in store: BlobStore,
        contentType: String,
        lastModified: HTTPDate,
        lastModifiedIsStrong: Bool,
        cacheControl: String?
    ) {
        self.init(
            identity: Variant(file: store.path(forSHA256: blob.sha256), length: blob.size, sha256: blob.sha256),
            gzip: blob.gzip.map { Variant(file: store.gzipPath(forSHA256: blob.sha256), length: $0.size, sha256: $0.sha256) },
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }
}
