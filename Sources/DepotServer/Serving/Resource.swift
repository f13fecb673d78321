import DepotHTTP
import DepotStore
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// Something Depot serves at a URL: stored bytes with their metadata, validators rendered once.
/// A class, so that handing one to a request costs one reference count, not one per field.
public final class Resource: Sendable {
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
            self.representationDigestField = "sha-256=:\(Data(Hex.bytes(sha256) ?? []).base64EncodedString()):"
        }
    }

    public let identity: Variant
    public let gzip: Variant?
    public let contentType: String
    public let lastModified: HTTPDate
    public let lastModifiedIsStrong: Bool
    public let cacheControl: String?
    let lastModifiedField: String
    /// The fields of every answer about the identity and the gzip variant, rendered once here
    /// instead of on every request.
    private let identityFields: Fields
    private let gzipFields: Fields?

    /// The pre-rendered fields of one variant's answers.
    struct Fields {
        /// What every answer about the resource carries, refusals included.
        let vary: HTTPFields
        /// A 304's.
        let notModified: HTTPFields
        /// A whole 200's.
        let ok: HTTPFields
        /// A 206's but `Content-Range`, `Content-Length` and a multipart `Content-Type`, which
        /// depend on the ranges.
        let partial: HTTPFields
        /// `notModified` and `ok` as NIO's `HTTPHeaders`, converted once here for
        /// ``DirectResponder``, which writes below the HTTPTypes codec: the same fields in the
        /// form its channel takes, not a second rule (a conversion on every answer cost its 304s
        /// a tenth of their rate).
        let directNotModified: HTTPHeaders
        let directOK: HTTPHeaders
    }

    public init(identity: Variant, gzip: Variant?, contentType: String, lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) {
        self.identity = identity
        self.gzip = gzip
        self.contentType = contentType
        self.lastModified = lastModified
        self.lastModifiedIsStrong = lastModifiedIsStrong
        self.cacheControl = cacheControl
        self.lastModifiedField = lastModified.imfFixdate
        let lastModifiedField = self.lastModifiedField
        func fields(_ variant: Variant, gzip isGzip: Bool) -> Fields {
            var vary = HTTPFields()
            if gzip != nil { vary[.vary] = "Accept-Encoding" }
            var notModified = vary
            notModified[.eTag] = variant.entityTagField
            notModified[.lastModified] = lastModifiedField
            if let cacheControl { notModified[.cacheControl] = cacheControl }
            var partial = notModified
            partial[.acceptRanges] = "bytes"
            partial[.reprDigest] = variant.representationDigestField
            if isGzip { partial[.contentEncoding] = "gzip" }
            partial[.contentType] = contentType
            var ok = partial
            ok[.contentLength] = String(variant.length)
            return Fields(
                vary: vary,
                notModified: notModified,
                ok: ok,
                partial: partial,
                directNotModified: HTTPHeaders(notModified),
                directOK: HTTPHeaders(ok)
            )
        }
        identityFields = fields(identity, gzip: false)
        gzipFields = gzip.map { fields($0, gzip: true) }
    }

    /// The pre-rendered fields of the variant `coding` names (the identity when there is no
    /// gzip variant).
    func fields(for coding: ContentCoding) -> Fields {
        coding == .gzip ? gzipFields ?? identityFields : identityFields
    }

    /// This resource with other storage for its variants: the same bytes, held elsewhere.
    func with(identity: Variant, gzip: Variant?) -> Resource {
        Resource(
            identity: identity,
            gzip: gzip,
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }

    /// A resource served from `blob`: the identity variant's ETag is the content's SHA-256, the
    /// gzip variant's is the SHA-256 of the gzip bytes, so the two never share a tag.
    public convenience init(
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

extension HTTPHeaders {
    /// `fields` in NIO's form, in order.
    init(_ fields: HTTPFields) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields { add(name: field.name.rawName, value: field.value) }
    }
}
