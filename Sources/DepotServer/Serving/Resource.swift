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
    /// The stored encoded variants, by content coding: gzip, and for large published files
    /// brotli and zstd. Never `identity`.
    public let encoded: [ContentCoding: Variant]
    public let contentType: String
    public let lastModified: HTTPDate
    public let lastModifiedIsStrong: Bool
    public let cacheControl: String?
    let lastModifiedField: String
    /// The fields of every answer about each variant, rendered once here instead of on every
    /// request.
    private let identityFields: Fields
    private let encodedFields: [ContentCoding: Fields]

    /// The gzip variant.
    public var gzip: Variant? { encoded[.gzip] }

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

    public init(
        identity: Variant,
        encoded: [ContentCoding: Variant] = [:],
        contentType: String,
        lastModified: HTTPDate,
        lastModifiedIsStrong: Bool,
        cacheControl: String?
    ) {
        self.identity = identity
        self.encoded = encoded.filter { $0.key != .identity }
        self.contentType = contentType
        self.lastModified = lastModified
        self.lastModifiedIsStrong = lastModifiedIsStrong
        self.cacheControl = cacheControl
        self.lastModifiedField = lastModified.imfFixdate
        let lastModifiedField = self.lastModifiedField
        let varies = !self.encoded.isEmpty
        func fields(_ variant: Variant, coding: ContentCoding) -> Fields {
            var vary = HTTPFields()
            if varies { vary[.vary] = "Accept-Encoding" }
            var notModified = vary
            notModified[.eTag] = variant.entityTagField
            notModified[.lastModified] = lastModifiedField
            if let cacheControl { notModified[.cacheControl] = cacheControl }
            var partial = notModified
            partial[.acceptRanges] = "bytes"
            partial[.reprDigest] = variant.representationDigestField
            if coding != .identity { partial[.contentEncoding] = coding.rawValue }
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
        identityFields = fields(identity, coding: .identity)
        encodedFields = Dictionary(uniqueKeysWithValues: self.encoded.map { ($0.key, fields($0.value, coding: $0.key)) })
    }

    /// The variant `coding` names (the identity when there is none in that coding).
    func variant(for coding: ContentCoding) -> Variant {
        encoded[coding] ?? identity
    }

    /// The pre-rendered fields of the variant `coding` names (the identity's when there is none
    /// in that coding).
    func fields(for coding: ContentCoding) -> Fields {
        encodedFields[coding] ?? identityFields
    }

    /// This resource with other storage for its variants: the same bytes, held elsewhere.
    func with(identity: Variant, encoded: [ContentCoding: Variant]) -> Resource {
        Resource(
            identity: identity,
            encoded: encoded,
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }

    /// A resource served from `blob` and its stored brotli and zstd `variants`: the identity
    /// variant's ETag is the content's SHA-256, each encoded variant's the SHA-256 of its own
    /// bytes, so no two share a tag.
    public convenience init(
        blob: BlobRecord,
        variants: [ContentVariantRecord] = [],
        in store: BlobStore,
        contentType: String,
        lastModified: HTTPDate,
        lastModifiedIsStrong: Bool,
        cacheControl: String?
    ) {
        self.init(
            identity: Variant(storage: .file(store.path(forSHA256: blob.sha256)), length: blob.size, sha256: blob.sha256),
            encoded: Self.encoded(blob: blob, variants: variants, in: store),
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }
}

extension Resource {
    /// The stored encoded variants of `blob`: its gzip variant and its kept brotli and zstd ones.
    static func encoded(blob: BlobRecord, variants: [ContentVariantRecord], in store: BlobStore) -> [ContentCoding: Variant] {
        var encoded: [ContentCoding: Variant] = [:]
        if let gzip = blob.gzip {
            encoded[.gzip] = Variant(storage: .file(store.gzipPath(forSHA256: blob.sha256)), length: gzip.size, sha256: gzip.sha256)
        }
        for variant in variants {
            guard let stored = variant.stored else { continue }
            encoded[variant.coding] = Variant(storage: .file(store.path(forSHA256: stored.sha256)), length: stored.size, sha256: stored.sha256)
        }
        return encoded
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
