import DepotHTTP
import GRDB

/// One published version of a logical path, as the catalog records it.
public struct FileVersion: Hashable, Sendable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "file_version"

    /// The logical path, e.g. `db/catalog.sqlite`.
    public var path: String
    /// 1 for the first publish of the path, one more for each publish of new content.
    public var version: Int64
    public var size: Int64
    public var sha256: String
    public var md5: String
    public var contentType: String
    /// Seconds since 1970: the `Last-Modified` of this version.
    public var publishedAt: Int64
    /// Whether `publishedAt` is a strong validator: no earlier version of the path was published
    /// in the same second (RFC 9110 §8.8.2.2).
    public var lastModifiedIsStrong: Bool
    public var gzipSize: Int64?
    public var gzipSHA256: String?
    /// When retention or an unpublish retired this version, in seconds since 1970.
    public var retiredAt: Int64?

    enum CodingKeys: String, CodingKey {
        case path, version, size, sha256, md5
        case contentType = "content_type"
        case publishedAt = "published_at"
        case lastModifiedIsStrong = "last_modified_is_strong"
        case gzipSize = "gzip_size"
        case gzipSHA256 = "gzip_sha256"
        case retiredAt = "retired_at"
    }

    /// The stored content of this version.
    public var blob: BlobRecord {
        BlobRecord(
            sha256: sha256,
            md5: md5,
            size: size,
            gzip: zip(gzipSHA256, gzipSize).map { BlobRecord.GzipVariant(sha256: $0, size: $1) }
        )
    }

    public var lastModified: HTTPDate { HTTPDate(secondsSince1970: publishedAt) }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
