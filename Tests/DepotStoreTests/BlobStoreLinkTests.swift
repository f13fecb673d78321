import Crypto
import DepotStore
import DepotTestFixtures
import Foundation
import NIOCore
import Testing
import _NIOFileSystem

/// The store changes its files only through its data folder's descriptor (issue 57, cause 1): a
/// link planted in `blobs/` (by whoever else can write the data folder) is refused, and nothing
/// is written outside.
@Suite("Blob store: links planted in the data folder")
struct BlobStoreLinkTests {
    static let content = Array("content whose shard folder is a planted link\n".utf8)
    static var sha256: String { SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined() }

    /// A store over `folder/data` whose shard folder for ``content`` is a link to `folder/outside`.
    static func plantedStore(in folder: URL) async throws -> (BlobStore, URL) {
        let store = try await BlobStore.open(dataDirectory: FilePath(folder.appendingPathComponent("data").path))
        let outside = folder.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let shard = URL(fileURLWithPath: store.directory.string).appendingPathComponent(String(sha256.prefix(2)))
        try FileManager.default.createSymbolicLink(at: shard, withDestinationURL: outside)
        return (store, outside)
    }

    @Test("an upload whose shard folder is a link is refused; nothing lands outside")
    func ingest() async throws {
        try await withTemporaryDirectory { folder in
            let (store, outside) = try await Self.plantedStore(in: folder)
            await #expect(throws: StoreError.self) {
                _ = try await store.ingest([ByteBuffer(bytes: Self.content)].async)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
    }

    @Test("a batch whose shard folder is a link is refused; nothing lands outside")
    func batch() async throws {
        try await withTemporaryDirectory { folder in
            let (store, outside) = try await Self.plantedStore(in: folder)
            var writer = try BlobBatchWriter(store: store)
            try await writer.write([(sha256: Self.sha256, bytes: Self.content)])
            do {
                _ = try await writer.commit()
                Issue.record("the batch was committed through the link")
            } catch is StoreError {}
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
    }
}
