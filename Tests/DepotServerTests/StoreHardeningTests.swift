import DepotHTTP
import DepotTestSupport
import Foundation
import GRDB
import NIOCore
import Synchronization
import Testing
import _NIOFileSystem

@testable import DepotStore

/// The store's promises under hostile timing and sizes: an immutable gzip URL never changes,
/// collection never deletes content a publish just stored again, sources too large to index
/// are refused without a crash, and the catalog syncs every commit.
@Suite("Store hardening")
struct StoreHardeningTests {
    static let text = Data(String(repeating: "the same line of text, again and again\n", count: 2_000).utf8)

    @Test("storing content again never replaces its gzip variant, even at another gzip level")
    func gzipVariantIsImmutable() async throws {
        try await withTemporaryDirectory { folder in
            let data = FilePath(folder.path)
            let first = try await BlobStore.open(dataDirectory: data, configuration: .init(gzipLevel: 1))
            let original = try await first.ingest([ByteBuffer(bytes: Self.text)].async)
            first.release(original.sha256)
            let gzipFile = URL(fileURLWithPath: first.gzipPath(forSHA256: original.sha256).string)
            let bytes = try Data(contentsOf: gzipFile)

            let second = try await BlobStore.open(dataDirectory: data, configuration: .init(gzipLevel: 9))
            let again = try await second.ingest([ByteBuffer(bytes: Self.text)].async)
            second.release(again.sha256)
            #expect(try Data(contentsOf: gzipFile) == bytes)
            #expect(again.gzip == original.gzip)
            #expect(again == original)
        }
    }

    @Test("collection does not delete a blob that a publish stores again between its check and its unlink")
    func collectionRace() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let garbage = try await store.ingest([ByteBuffer(bytes: Self.text)].async)
            store.release(garbage.sha256)
            let path = store.path(forSHA256: garbage.sha256).string
            let future = HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970) + 3600)
            let stored = Mutex<BlobRecord?>(nil)
            // After collection has read what to keep (nothing), the same content is published again.
            _ = try await store.removeBlobs(olderThan: future) {
                let record = try await store.ingest([ByteBuffer(bytes: Self.text)].async)
                stored.withLock { $0 = record }
                return []
            }
            let record = try #require(stored.withLock { $0 })
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Self.text)
            store.release(record.sha256)
        }
    }

    @Test("a source of 4 GiB is refused before it is read; nothing traps")
    func sourceTooLargeToIndex() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("huge")
            #expect(FileManager.default.createFile(atPath: source.path, contents: nil))
            let handle = try FileHandle(forWritingTo: source)
            try handle.truncate(atOffset: 4 << 30)  // sparse: no disk space used
            try handle.close()
            let target = try folder.write(Self.text, to: "small")
            let started = ContinuousClock.now
            #expect {
                _ = try DeltaMaker.make(from: source.path, to: target.path)
            } throws: { ($0 as? StoreError)?.code == .tooLarge }
            // Refused from its size alone, not after reading 4 GiB.
            #expect(ContinuousClock.now - started < .seconds(1))
        }
    }

    @Test("the catalog syncs every commit (synchronous = FULL), so an acknowledged publish survives a power cut")
    func synchronousFull() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let writer = try await catalog.database.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
            #expect(writer == 2)
        }
    }
}
