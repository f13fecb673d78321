import DepotExport
import DepotManifest
import DepotStore
import NIOPosix

/// The bytes of a release page's packs, from the stored blobs: what ``PagePacks`` makes once and
/// keeps, and what an export writes.
extension PublishedContent {
    /// The pack of `page` (`/packs/{page sha256}`): its small files, one after the other, as
    /// ``DepotManifest/ReleasePage/packMembers`` lays them out (gzip variants where a member
    /// downloads one). `nil` when a blob it names is no longer stored. Blocking: for a thread
    /// of its own.
    static func packBytes(of page: ReleasePage, reading blobs: BlobStore.Reader) throws -> [UInt8]? {
        try page.pack { member in try blobs.contents(ofSHA256: member.entry.sha256, gzip: member.isGzip) }
    }

    /// The brotli pack of `page` (`/packs/{page sha256}.br`): the contents of its pack members
    /// as one brotli stream (``DepotExport/BrotliPack``); `nil` when it would save nothing.
    /// Blocking: for a thread of its own.
    ///
    /// - Throws: ``DepotExport/BrotliPack/MissingMember`` when a blob it names is no longer stored.
    static func brotliPackBytes(of page: ReleasePage, reading blobs: BlobStore.Reader) throws -> [UInt8]? {
        try BrotliPack.encode(page) { entry in try blobs.contents(ofSHA256: entry.sha256) }
    }

    /// ``packBytes(of:reading:)`` for an export, on NIO's blocking pool.
    static func packBytes(of page: ReleasePage, store: BlobStore) async throws -> [UInt8]? {
        try await NIOThreadPool.singleton.runIfActive { try packBytes(of: page, reading: try store.reader()) }
    }

    /// ``brotliPackBytes(of:reading:)`` for an export, on NIO's blocking pool.
    static func brotliPackBytes(of page: ReleasePage, store: BlobStore) async throws -> [UInt8]? {
        try await NIOThreadPool.singleton.runIfActive { try brotliPackBytes(of: page, reading: try store.reader()) }
    }
}
