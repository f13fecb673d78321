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

    /// `/blobs/{sha256}`, while a version refers to the content. Immutable: its date is strong.
    public func blob(sha256: String) async throws -> Resource? {
        try await entry(for: .blob(sha256)) { [self] in
            guard ContentAddress.isSHA256(sha256), let blob = try await releases.publishedBlob(sha256: sha256) else { return nil }
            return ResourceCache.Entry(
                immutable(
                    stored: store.path(forSHA256: sha256),
                    size: blob.record.size,
                    sha256: sha256,
                    of: blob,
                    contentType: "application/octet-stream"
                )
            )
        }?.resource
    }

    /// `/blobs/{sha256}.gz`: the gzip variant of a published blob.
    public func gzipBlob(sha256: String) async throws -> Resource? {
        try await entry(for: .gzipBlob(sha256)) { [self] in
            guard ContentAddress.isSHA256(sha256), let blob = try await releases.publishedBlob(sha256: sha256), let gzip = blob.record.gzip else {
                return nil
            }
            return ResourceCache.Entry(
                immutable(
                    stored: store.gzipPath(forSHA256: sha256),
                    size: gzip.size,
                    sha256: gzip.sha256,
                    of: blob,
                    contentType: ContentCoding.gzip.mediaType
                )
            )
        }?.resource
    }

    /// `/blobs/{sha256}.br` or `.zst`: the brotli or zstd variant of a published blob, served as
    /// the bytes they are (no `Content-Encoding`), as the gzip variant is.
    public func variantBlob(sha256: String, coding: ContentCoding) async throws -> Resource? {
        try await entry(for: .variantBlob(sha256, coding)) { [self] in
            guard ContentAddress.isSHA256(sha256), let blob = try await releases.publishedBlob(sha256: sha256),
                let stored = try await blobs.contentVariants(of: sha256).first(where: { $0.coding == coding })?.stored
            else { return nil }
            return ResourceCache.Entry(
                immutable(
                    stored: store.path(forSHA256: stored.sha256),
                    size: stored.size,
                    sha256: stored.sha256,
                    of: blob,
                    contentType: coding.mediaType
                )
            )
        }?.resource
    }

    /// `/blobs/{sha256}.blocks`, the block index of a published blob, or (`packed`)
    /// `/blobs/{sha256}.zblocks`, its blocks each deflated on its own, which clients fetch by
    /// ranges.
    public func blockIndex(of sha256: String, packed: Bool) async throws -> Resource? {
        try await entry(for: packed ? .packedBlocks(sha256) : .blockIndex(sha256)) { [self] in
            guard ContentAddress.isSHA256(sha256), let blob = try await releases.publishedBlob(sha256: sha256),
                let record = try await blobs.blockIndex(of: sha256)
            else { return nil }
            let (stored, size) = packed ? (record.packedSHA256, record.packedSize) : (record.indexSHA256, record.indexSize)
            return ResourceCache.Entry(
                immutable(stored: store.path(forSHA256: stored), size: size, sha256: stored, of: blob, contentType: "application/octet-stream")
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

    /// `/deltas/{from}/{to}`: the gzip-compressed VCDIFF patch from one content to another, and
    /// the bytes it saves against the full (gzip) download of `to`.
    public func delta(from: String, to: String) async throws -> (resource: Resource, saving: Int64)? {
        try await entry(for: .delta(from: from, to: to)) { [self] in
            guard ContentAddress.isSHA256(from), ContentAddress.isSHA256(to), let (patch, target) = try await blobs.patch(from: from, to: to) else {
                return nil
            }
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

    /// `/deltas/{from}/{to}` between two documents of one kind (release documents, or pages), as
    /// made after a release (``PatchMaker/makeDocumentPatches(channel:)``): a client that holds
    /// the parent release fetches the new release document and its changed pages as patches of
    /// a few hundred bytes. Read from the catalog on each request, outside the resource cache:
    /// requests for documents' patches never push files out of it.
    func documentDelta(from: String, to: String) async throws -> (resource: Resource, saving: Int64)? {
        guard ContentAddress.isSHA256(from), ContentAddress.isSHA256(to), let delta = try await blobs.documentDelta(from: from, to: to) else {
            return nil
        }
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
