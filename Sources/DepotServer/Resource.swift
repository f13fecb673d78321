import DepotHTTP
import DepotStore
import Foundation
import NIOCore
import _NIOFileSystem

/// Something Depot serves at a URL: stored bytes with their metadata, validators rendered once.
public struct Resource: Sendable {
    /// Where a variant's bytes are.
    public enum Storage: Sendable {
        /// A file, read when the response is written.
        case file(FilePath)
        /// Bytes in memory (the manifest, digest sidecars).
        case bytes(ByteBuffer)
    }

    /// One stored encoding of the resource.
    public struct Variant: Sendable {
        public let storage: Storage
        public let length: Int64
        /// Strong, from the SHA-256 of exactly these bytes.
        public let entityTag: EntityTag
        let entityTagField: String
        /// `Repr-Digest` (RFC 9530) of these bytes: `sha-256=:<base64>:`.
        let representationDigestField: String

        public init(storage: Storage, length: Int64, sha256: String) {
            self.storage = storage
            self.length = length
            self.entityTag = EntityTag(opaqueTag: sha256)!
            self.entityTagField = entityTag.description
            self.representationDigestField = "sha-256=:\(Data(hexString: sha256).base64EncodedString()):"
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
            identity: Variant(storage: .file(store.path(forSHA256: blob.sha256)), length: blob.size, sha256: blob.sha256),
            gzip: blob.gzip.map { Variant(storage: .file(store.gzipPath(forSHA256: blob.sha256)), length: $0.size, sha256: $0.sha256) },
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }
}

extension Data {
    /// Bytes from lower-case or upper-case hex digits; stops at the first non-hex pair.
    init(hexString: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hexString.utf8.count / 2)
        var iterator = hexString.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next(), let h = Self.hexValue(high), let l = Self.hexValue(low) {
            bytes.append(h << 4 | l)
        }
        self.init(bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
