import DepotExport
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import NIOPosix
import Synchronization
import SystemPackage

/// The packs of a release page: its small files in one download.
extension PublishedContent {
    /// `/packs/{page sha256}`: the small files of a release page, one after the other, as
    /// ``DepotManifest/ReleasePage/packMembers`` lays them out, so that a client fetching
    /// thousands of small files makes one request a page. Made from the stored blobs when first
    /// asked, held in the resource cache: a function of the page, immutable like it. `nil` when
    /// there is no such page, or a blob it names is no longer stored.
    public func pack(page sha256: String) async throws -> Resource? {
        try await entry(for: .pack(sha256)) { [self] in
            guard let (document, page) = try await storedPage(sha256), let bytes = try await Self.packBytes(of: page, store: store) else {
                return nil
            }
            return ResourceCache.Entry(
                Self.inMemory(
                    bytes,
                    contentType: "application/octet-stream",
                    lastModified: HTTPDate(secondsSince1970: document.createdAt),
                    lastModifiedIsStrong: true,
                    cacheControl: cachePolicy.blobs
                )
            )
        }?.resource
    }

    /// `/packs/{page sha256}.br`: the contents of the page's pack members as one brotli stream
    /// (``DepotExport/BrotliPack``), which a client fetching a whole page takes; `nil` (404) when
    /// it would save nothing. Made when first asked, held in the resource cache, like the pack.
    public func brotliPack(page sha256: String) async throws -> Resource? {
        guard !unpackable.withLock({ $0.contains(sha256) }) else { return nil }
        return try await entry(for: .brotliPack(sha256)) { [self] in
            guard let (document, page) = try await storedPage(sha256) else { return nil }
            // A member no longer stored: 404, and asked again later. One that would save nothing: 404, remembered.
            let encoded: [UInt8]?
            do { encoded = try await Self.brotliPackBytes(of: page, store: store) } catch { return nil }
            guard let bytes = encoded else {
                unpackable.withLock { pages in
                    if pages.count >= Self.maximumUnpackable { pages.removeAll() }
                    pages.insert(sha256)
                }
                return nil
            }
            return ResourceCache.Entry(
                Self.inMemory(
                    bytes,
                    contentType: ContentCoding.br.mediaType,
                    lastModified: HTTPDate(secondsSince1970: document.createdAt),
                    lastModifiedIsStrong: true,
                    cacheControl: cachePolicy.blobs
                )
            )
        }?.resource
    }

    /// The stored page `sha256`, as stored and decoded; `nil` when there is none.
    private func storedPage(_ sha256: String) async throws -> (document: Catalog.StoredDocument, page: ReleasePage)? {
        guard ContentAddress.isSHA256(sha256), let document = try await catalog.pageDocument(sha256: sha256),
            let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(document.bytes))
        else { return nil }
        return (document, page)
    }

    /// The brotli pack of `page` (``brotliPack(page:)``), from the stored blobs, read and encoded
    /// on NIO's blocking pool; `nil` when it would save nothing. Throws when a blob it names is
    /// no longer stored.
    static func brotliPackBytes(of page: ReleasePage, store: BlobStore) async throws -> [UInt8]? {
        try await NIOThreadPool.singleton.runIfActive {
            try BrotliPack.encode(page) { entry in FileManager.default.contents(atPath: store.path(forSHA256: entry.sha256).string).map(Array.init) }
        }
    }

    /// The bytes of the pack of `page` (``pack(page:)``), read from the stored blobs on NIO's
    /// blocking pool; `nil` when a blob it names is no longer stored.
    static func packBytes(of page: ReleasePage, store: BlobStore) async throws -> [UInt8]? {
        try await NIOThreadPool.singleton.runIfActive {
            page.pack { member in
                let path = member.isGzip ? store.gzipPath(forSHA256: member.entry.sha256) : store.path(forSHA256: member.entry.sha256)
                return FileManager.default.contents(atPath: path.string).map(Array.init)
            }
        }
    }
}
