import Crypto
import DepotAPI
import DepotConnection
import DepotDelta
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import _NIOFileSystem

/// What the catalog publishes, as resources: the live files of the default channel with their
/// digest sidecars, the blobs, the patches and the signed channel documents.
///
/// Resources are read from the catalog when first asked for and kept in a bounded
/// ``ResourceCache``; a change of the catalog removes exactly the entries it made stale
/// (``changed(paths:channel:)``), so a publish costs the same for 1,000 live files as for 100,000
/// and memory does not grow with them. ``DirectResponder`` answers from the cache alone
/// (``cached(_:)``); a miss goes to Hummingbird's routes, whose lookup fills it.
public final class PublishedContent: Sendable {
    /// `Cache-Control` for each kind of URL.
    public struct CachePolicy: Sendable {
        public var files: String?
        /// Of `/channels/…` and `/manifest.json`: stale at once for a client, which revalidates
        /// every poll, and fresh for a second in a shared cache (`s-maxage`), so that a cache with
        /// its default configuration (Varnish, a CDN) answers a fleet's polls, not the origin.
        public var channels: String?
        /// Of `/blobs/…`, `/deltas/…`, `/releases/…` and `/pages/…`: immutable URLs.
        public var blobs: String?

        public init(files: String? = "no-cache", channels: String? = "max-age=0, s-maxage=1", blobs: String? = "public, max-age=31536000, immutable")
        {
            self.files = files
            self.channels = channels
            self.blobs = blobs
        }
    }

    let releases: ReleaseStore
    let blobs: BlobIndex
    let store: BlobStore
    let cachePolicy: CachePolicy
    /// The channel documents, made and signed (``ChannelDocuments``).
    let documents: ChannelDocuments
    private let cache: Mutex<ResourceCache>

    /// - Parameters:
    ///   - memoryBudget: Bytes of small files (≤ ``SmallFiles/maximumFileBytes``) the cache holds
    ///     in memory, so their 200s need no file read.
    ///   - cacheEntries: How many resources the cache holds.
    public init(
        catalog: Catalog,
        store: BlobStore,
        cachePolicy: CachePolicy,
        memoryBudget: Int = 0,
        cacheEntries: Int = 8192,
        signer: ChannelSigner = ChannelSigner()
    ) {
        self.releases = ReleaseStore(catalog)
        self.blobs = BlobIndex(catalog)
        self.store = store
        self.cachePolicy = cachePolicy
        self.documents = ChannelDocuments(releases: releases, signer: signer, cacheControl: cachePolicy.channels)
        self.cache = Mutex(ResourceCache(maximumEntries: cacheEntries, maximumBytes: memoryBudget))
    }

    /// `/channels/{name}`: the signed document of a channel.
    public func channel(named name: String) -> Resource? { documents.document(named: name)?.resource }

    /// The resource `key` names, if it is cached: what ``DirectResponder`` serves.
    func cached(_ key: ResourceCache.Key) -> Resource? { cache.withLock { $0.entry(for: key)?.resource } }

    /// `/files/{path}`: the live version of `path` in the default channel; else, for a `path`
    /// ending in `.md5` or `.sha256`, that digest of the live file it names.
    public func file(at path: String) async throws -> Resource? {
        try await entry(for: .file(path)) { [self] in
            if let version = try await releases.liveVersion(of: path) { return ResourceCache.Entry(try await fileResource(version)) }
            for (suffix, digest) in [(".md5", \FileVersion.md5), (".sha256", \FileVersion.sha256)] where path.hasSuffix(suffix) {
                guard let version = try await releases.liveVersion(of: String(path.dropLast(suffix.count))) else { return nil }
                return ResourceCache.Entry(
                    Self.inMemory(
                        Array("\(version[keyPath: digest])\n".utf8),
                        contentType: "text/plain; charset=utf-8",
                        lastModified: version.lastModified,
                        lastModifiedIsStrong: version.lastModifiedIsStrong,
                        cacheControl: cachePolicy.files
                    )
                )
            }
            return nil
        }?.resource
    }

    /// An object under `/blobs/`, while a version refers to its content: the content
    /// (`/blobs/{sha256}`); its gzip, brotli or zstd variant (`.gz`, `.br`, `.zst`), served as
    /// the bytes they are (no `Content-Encoding`); its block index (`.blocks`) or its blocks each
    /// deflated on its own (`.zblocks`), which clients fetch by ranges. Immutable: its date is
    /// strong. `nil` for another object, or one not stored.
    func blobObject(_ object: TreeObject) async throws -> Resource? {
        guard let sha256 = object.address, object.kind.folder == TreeObject.Kind.blob.folder else { return nil }
        return try await entry(for: .object(object)) { [self] in
            guard let blob = try await releases.publishedBlob(sha256: sha256) else { return nil }
            let stored: (path: FilePath, sha256: String, size: Int64, contentType: String)
            switch object.kind {
            case .gzip:
                guard let gzip = blob.record.gzip else { return nil }
                stored = (store.gzipPath(forSHA256: sha256), gzip.sha256, gzip.size, ContentCoding.gzip.mediaType)
            case .brotli, .zstd:
                let coding: ContentCoding = object.kind == .brotli ? .br : .zstd
                guard let variant = try await blobs.contentVariants(of: sha256).first(where: { $0.coding == coding })?.stored else {
                    return nil
                }
                stored = (store.path(forSHA256: variant.sha256), variant.sha256, variant.size, coding.mediaType)
            case .blockIndex, .blockPack:
                guard let record = try await blobs.blockIndex(of: sha256) else { return nil }
                let (indexed, size) = object.kind == .blockPack ? (record.packedSHA256, record.packedSize) : (record.indexSHA256, record.indexSize)
                stored = (store.path(forSHA256: indexed), indexed, size, "application/octet-stream")
            default:
                stored = (store.path(forSHA256: sha256), sha256, blob.record.size, "application/octet-stream")
            }
            return ResourceCache.Entry(
                immutable(stored: stored.path, size: stored.size, sha256: stored.sha256, of: blob, contentType: stored.contentType)
            )
        }?.resource
    }

    /// A stored file under an immutable URL about `blob`: its date, the first publication, is
    /// strong.
    private func immutable(stored path: FilePath, size: Int64, sha256: String, of blob: PublishedBlob, contentType: String) -> Resource {
        Resource(
            identity: .init(storage: .file(path), length: size, sha256: sha256),
            contentType: contentType,
            lastModified: blob.firstPublished,
            lastModifiedIsStrong: true,
            cacheControl: cachePolicy.blobs
        )
    }

    /// The patch `object` names (`/deltas/{from}/{to}`): the gzip-compressed VCDIFF patch from
    /// one content to another, and the bytes it saves against the full (gzip) download of `to`.
    func delta(_ object: TreeObject) async throws -> (resource: Resource, saving: Int64)? {
        guard object.kind == .delta, let from = object.base, let to = object.address else { return nil }
        return try await entry(for: .object(object)) { [self] in
            guard let (patch, target) = try await blobs.patch(from: from, to: to) else { return nil }
            return ResourceCache.Entry(
                Resource(
                    identity: .init(storage: .file(store.path(forSHA256: patch.blobSHA256)), length: patch.size, sha256: patch.blobSHA256),
                    contentType: "application/gzip",
                    lastModified: target.firstPublished,
                    lastModifiedIsStrong: true,
                    cacheControl: cachePolicy.blobs
                ),
                saving: (target.record.gzip?.size ?? target.record.size) - patch.size
            )
        }.map { ($0.resource, $0.saving) }
    }

    /// The patch `object` names (`/deltas/{from}/{to}`) between two documents of one kind (release documents, or pages), as
    /// made after a release (``PatchMaker/makeDocumentPatches(channel:)``): a client that holds
    /// the parent release fetches the new release document and its changed pages as patches of
    /// a few hundred bytes. Read from the catalog on each request, outside the resource cache:
    /// requests for documents' patches never push files out of it.
    func documentDelta(_ object: TreeObject) async throws -> (resource: Resource, saving: Int64)? {
        guard object.kind == .delta, let from = object.base, let to = object.address,
            let delta = try await blobs.documentDelta(from: from, to: to)
        else { return nil }
        let resource = Self.inMemory(
            delta.patch,
            contentType: "application/gzip",
            lastModified: HTTPDate(secondsSince1970: delta.targetCreatedAt),
            lastModifiedIsStrong: true,
            cacheControl: cachePolicy.blobs
        )
        return (resource, delta.fullSize - resource.identity.length)
    }

    /// After a change of `channel` that touched `paths` (as stored): drops what the change made
    /// stale and remakes the channel documents. O(paths), whatever the number of live files.
    public func changed(paths: some Sequence<String>, channel: String) async throws {
        if channel == ChannelName.default {
            cache.withLock { cache in
                cache.remove(paths.lazy.flatMap { path in ["", ".md5", ".sha256"].map { ResourceCache.Key.file(path + $0) } })
            }
        }
        try await documents.reload()
    }

    /// After a brotli or zstd variant was made in the background: drops the cached files, so
    /// that `/files/` negotiates it from now on (a rare event: every file is read again once).
    public func variantMade(of sha256: String) {
        cache.withLock { cache in
            cache.removeAll { key in
                if case .file = key { return true }
                return false
            }
        }
    }

    /// After retired versions or releases were removed: drops the blobs and patches, which may
    /// be gone.
    public func removedRetiredVersions() {
        cache.withLock { cache in
            cache.removeAll { key in
                if case .file = key { return false }
                return true
            }
        }
    }

    /// The cached entry for `key`, else what `load` reads, cached unless the catalog changed
    /// meanwhile.
    func entry(for key: ResourceCache.Key, load: () async throws -> ResourceCache.Entry?) async throws -> ResourceCache.Entry? {
        let (cached, generation) = cache.withLock { ($0.entry(for: key), $0.generation) }
        if let cached { return cached }
        guard let loaded = try await load() else { return nil }
        cache.withLock { $0.insert(loaded, for: key, readAt: generation) }
        return loaded
    }

    /// The resource of a live version, its small variants read into memory while the budget
    /// allows it.
    private func fileResource(_ version: FileVersion) async throws -> Resource {
        let resource = Resource(
            blob: version.blob,
            variants: try await blobs.contentVariants(of: version.sha256),
            in: store,
            contentType: version.contentType,
            lastModified: version.lastModified,
            lastModifiedIsStrong: version.lastModifiedIsStrong,
            cacheControl: cachePolicy.files
        )
        let budget = cache.withLock { $0.maximumBytes } / 2
        let held = resource.encoded.values.reduce(resource.identity.length) { $0 + $1.length }
        guard held <= min(Int64(budget), SmallFiles.maximumFileBytes) else { return resource }
        return await SmallFiles.inMemory(resource, fileSystem: .shared)
    }
}
