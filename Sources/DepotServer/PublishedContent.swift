import CompressNIO
import Crypto
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import NIOCore
import Synchronization
import _NIOFileSystem

/// What the catalog publishes, turned into resources: the live files, their digest sidecars, the
/// blobs and the manifest. Rebuilt from a catalog snapshot after every change, so requests never
/// query the catalog.
public final class PublishedContent: Sendable {
    struct State {
        var serial: Int64 = -1
        /// Which reload built this state: reloads are numbered as they start.
        var generation = 0
        var files: [String: Resource] = [:]
        var sidecars: [String: Resource] = [:]
        var blobs: [String: Resource] = [:]
        var gzipBlobs: [String: Resource] = [:]
        /// `/deltas/{from}/{to}`, keyed by `from/to`.
        var deltas: [String: Resource] = [:]
        /// What each patch saves against the full download of its target, keyed like `deltas`.
        var deltaSavings: [String: Int64] = [:]
        var smallFiles = SmallFiles(budget: 0)
    }

    /// `Cache-Control` for each kind of URL.
    public struct CachePolicy: Sendable {
        public var files: String?
        /// Of `/channels/…` and `/manifest.json`.
        public var channels: String?
        /// Of `/blobs/…`, `/deltas/…`, `/releases/…` and `/pages/…`: immutable URLs.
        public var blobs: String?

        public init(files: String? = "no-cache", channels: String? = "no-cache", blobs: String? = "public, max-age=31536000, immutable") {
            self.files = files
            self.channels = channels
            self.blobs = blobs
        }
    }

    let catalog: Catalog
    let store: BlobStore
    let cachePolicy: CachePolicy
    /// How many bytes of small live files are held in memory.
    let memoryBudget: Int
    /// Signs channel documents.
    let signer: ChannelSigner
    private let state = Mutex(State())
    private let reloads = Atomic<Int>(0)
    /// Each channel's signed document, with the serial and expiry it was made for.
    private let channelDocuments = Mutex<[String: (serial: Int64, expires: Int64, resource: Resource)]>([:])

    public init(catalog: Catalog, store: BlobStore, cachePolicy: CachePolicy, memoryBudget: Int = 0, signer: ChannelSigner = ChannelSigner()) {
        self.catalog = catalog
        self.store = store
        self.cachePolicy = cachePolicy
        self.memoryBudget = memoryBudget
        self.signer = signer
    }

    /// `/channels/{name}`: the signed document of a channel.
    public func channel(named name: String) -> Resource? { channelDocuments.withLock { $0[name]?.resource } }

    /// Reads where each channel points and makes its document, signed and valid until
    /// ``ChannelSigner`` says. A document replaces the current one only when it is for a newer
    /// serial or a later expiry, so overlapping reloads never go back.
    public func reloadChannels(now: HTTPDate = .now()) async throws {
        let expires = signer.expiry(now: now.secondsSince1970)
        for channel in try await catalog.channels() {
            let document = try signer.document(
                channel: channel.name,
                release: channel.release.id,
                number: channel.release.number,
                serial: channel.serial,
                expires: HTTPDate(secondsSince1970: expires).imfFixdate
            )
            let resource = try Self.jsonResource(
                Array(try PublishController.encoder.encode(document)) + [UInt8(ascii: "\n")],
                lastModified: HTTPDate(secondsSince1970: channel.updatedAt),
                lastModifiedIsStrong: false,
                cacheControl: cachePolicy.channels
            )
            channelDocuments.withLock { documents in
                if let current = documents[channel.name], (current.serial, current.expires) >= (channel.serial, expires) { return }
                documents[channel.name] = (channel.serial, expires, resource)
            }
        }
    }

    /// The live version of `path`.
    public func file(at path: String) -> Resource? { state.withLock { $0.files[path] } }
    /// `path.md5` or `path.sha256` of a live file.
    public func sidecar(at path: String) -> Resource? { state.withLock { $0.sidecars[path] } }
    /// `/blobs/{sha256}`.
    public func blob(sha256: String) -> Resource? { state.withLock { $0.blobs[sha256] } }
    /// `/blobs/{sha256}.gz`.
    public func gzipBlob(sha256: String) -> Resource? { state.withLock { $0.gzipBlobs[sha256] } }
    /// `/deltas/{from}/{to}`: the gzip-compressed VCDIFF patch from one content to another.
    public func delta(from: String, to: String) -> Resource? { state.withLock { $0.deltas["\(from)/\(to)"] } }
    /// Bytes the patch from `from` to `to` saves against the full (gzip) download of `to`.
    func deltaSaving(from: String, to: String) -> Int64 { state.withLock { $0.deltaSavings["\(from)/\(to)"] ?? 0 } }

    /// Reads the catalog and swaps in the new resources. Reloads overlap (a publish, the patch
    /// maker and collection each start one), so a state replaces the current one only if it is
    /// newer: a higher manifest serial, or the same serial read by a reload that started later.
    /// The serial alone was not enough: removing retired versions changes what may be served
    /// without a new manifest, and a reload that had read the catalog before the removal could
    /// bring back a blob whose file collection deleted next (a 200 with no file behind it).
    public func reload() async throws {
        let generation = reloads.wrappingAdd(1, ordering: .relaxed).newValue
        let snapshot = try await catalog.snapshot()
        var next = State(serial: snapshot.changes, generation: generation)
        let previousSmallFiles = state.withLock { $0.smallFiles }
        next.smallFiles = SmallFiles(budget: memoryBudget)
        for (path, version) in snapshot.live.sorted(by: { $0.key < $1.key }) {
            let resource = Resource(
                blob: version.blob,
                in: store,
                contentType: version.contentType,
                lastModified: version.lastModified,
                lastModifiedIsStrong: version.lastModifiedIsStrong,
                cacheControl: cachePolicy.files
            )
            next.files[path] = await next.smallFiles.holding(resource, previous: previousSmallFiles, fileSystem: .shared)
            for (suffix, hex) in [("md5", version.md5), ("sha256", version.sha256)] {
                next.sidecars["\(path).\(suffix)"] = Self.inMemory(
                    Array("\(hex)\n".utf8),
                    contentType: "text/plain; charset=utf-8",
                    lastModified: version.lastModified,
                    lastModifiedIsStrong: version.lastModifiedIsStrong,
                    cacheControl: cachePolicy.files
                )
            }
        }
        for (sha256, blob) in snapshot.blobs {
            // Immutable URLs: the content under them never changes, so their date is strong.
            next.blobs[sha256] = Resource(
                identity: .init(storage: .file(store.path(forSHA256: sha256)), length: blob.record.size, sha256: sha256),
                gzip: nil,
                contentType: "application/octet-stream",
                lastModified: blob.firstPublished,
                lastModifiedIsStrong: true,
                cacheControl: cachePolicy.blobs
            )
            if let gzip = blob.record.gzip {
                next.gzipBlobs[sha256] = Resource(
                    identity: .init(storage: .file(store.gzipPath(forSHA256: sha256)), length: gzip.size, sha256: gzip.sha256),
                    gzip: nil,
                    contentType: "application/gzip",
                    lastModified: blob.firstPublished,
                    lastModifiedIsStrong: true,
                    cacheControl: cachePolicy.blobs
                )
            }
        }
        for delta in snapshot.deltas {
            if let target = snapshot.blobs[delta.toSHA256]?.record {
                next.deltaSavings["\(delta.fromSHA256)/\(delta.toSHA256)"] = (target.gzip?.size ?? target.size) - delta.size
            }
            next.deltas["\(delta.fromSHA256)/\(delta.toSHA256)"] = Resource(
                identity: .init(storage: .file(store.path(forSHA256: delta.blobSHA256)), length: delta.size, sha256: delta.blobSHA256),
                gzip: nil,
                contentType: "application/gzip",
                lastModified: snapshot.blobs[delta.toSHA256]?.firstPublished ?? HTTPDate(secondsSince1970: 0),
                lastModifiedIsStrong: true,
                cacheControl: cachePolicy.blobs
            )
        }
        state.withLock { current in
            if (next.serial, next.generation) > (current.serial, current.generation) { current = next }
        }
        try await reloadChannels()
    }

    /// A JSON document served from memory, with a gzip variant when compressing saves a tenth.
    static func jsonResource(_ document: [UInt8], lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) throws -> Resource {
        var identity = ByteBuffer(bytes: document)
        let compressed = try identity.compress(with: .gzip)
        let gzip =
            compressed.readableBytes * 10 <= document.count * 9
            ? Resource.Variant(
                storage: .bytes(compressed),
                length: Int64(compressed.readableBytes),
                sha256: Hex.string(SHA256.hash(data: Data(compressed.readableBytesView)))
            ) : nil
        return Resource(
            identity: .init(
                storage: .bytes(ByteBuffer(bytes: document)),
                length: Int64(document.count),
                sha256: Hex.string(SHA256.hash(data: document))
            ),
            gzip: gzip,
            contentType: "application/json",
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }

    static func inMemory(_ bytes: [UInt8], contentType: String, lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) -> Resource
    {
        Resource(
            identity: .init(storage: .bytes(ByteBuffer(bytes: bytes)), length: Int64(bytes.count), sha256: Hex.string(SHA256.hash(data: bytes))),
            gzip: nil,
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }
}
