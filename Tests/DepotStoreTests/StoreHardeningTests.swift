import DepotHTTP
import DepotTestFixtures
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

    @Test("a commit that holds a blob while collection runs finds the blob and its gzip variant both, or neither")
    func collectionRaceWithCommit() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let record = try await store.ingest([ByteBuffer(bytes: Self.text)].async)
            store.release(record.sha256)
            #expect(record.gzip != nil)
            let future = HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970) + 3600)
            let files = [store.path(forSHA256: record.sha256).string, store.gzipPath(forSHA256: record.sha256).string]
            // What a commit does at every point collection can stop at: hold the blob if it is
            // stored, then rely on its record's files.
            let commitHeld = Mutex<Bool?>(nil)
            let commit: @Sendable () async throws -> Void = {
                guard commitHeld.withLock({ $0 }) == nil else { return }
                let held = try await store.holdIfStored(record.sha256)
                commitHeld.withLock { $0 = held }
            }
            _ = try await store.removeBlobs(olderThan: future) {
                []
            } removed: { _ in
                try await commit()
            }
            let held = try #require(commitHeld.withLock { $0 } as Bool?)
            let present = files.map { FileManager.default.fileExists(atPath: $0) }
            #expect(present == [held, held], "held: \(held), blob and variant present: \(present)")
            #expect(!held, "collection ran first and took both")
            // Held before collection: both stay.
            let again = try await store.ingest([ByteBuffer(bytes: Self.text)].async)
            _ = try await store.removeBlobs(olderThan: future) { [] }
            #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0) })
            store.release(again.sha256)
        }
    }

    /// The bytes the calling thread has read with `read(2)` and its kin (`rchar` of
    /// `/proc/thread-self/io`), whatever other threads of the test process read.
    static func bytesReadByThisThread() throws -> Int64 {
        let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int64(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    @Test(
        "a source of 4 GiB is refused before it is read; nothing traps",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/thread-self/io"))
    )
    func sourceTooLargeToIndex() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("huge")
            #expect(FileManager.default.createFile(atPath: source.path, contents: nil))
            let handle = try FileHandle(forWritingTo: source)
            try handle.truncate(atOffset: 4 << 30)  // sparse: no disk space used
            try handle.close()
            let target = try folder.write(Self.text, to: "small")
            // Refused from its size alone, not after reading 4 GiB: the bytes this thread read
            // meanwhile (the kernel's count; the call runs on this thread, with no suspension).
            let before = try Self.bytesReadByThisThread()
            #expect {
                _ = try DeltaMaker.make(from: source.path, to: target.path)
            } throws: { ($0 as? StoreError)?.code == .tooLarge }
            let read = try Self.bytesReadByThisThread() - before
            #expect(read < 1 << 20, "\(read) bytes read")
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

/// The public folder read at the moment of reading, not of listing.
@Suite("Public folder swaps")
struct PublicFolderSwapTests {
    @Test("a file swapped for a link after the listing is not followed: not to a file outside, nor to a hidden one")
    func swappedForLink() async throws {
        try await withTemporaryDirectory { root in
            let folder = root.appendingPathComponent("public")
            try folder.write(Data("listed\n".utf8), to: "page.txt")
            try folder.write(Data("hidden\n".utf8), to: ".secret")
            try root.write(Data("outside\n".utf8), to: "outside.txt")
            let store = try await BlobStore.open(dataDirectory: FilePath(root.appendingPathComponent("data").path))
            let directory = try PublicDirectory(path: folder.path, store: store)
            let page = directory.root.appending("page.txt")
            // What the scan does after listing page.txt as a regular file, with the file swapped
            // for a link in between.
            for destination in [root.appendingPathComponent("outside.txt").path, folder.appendingPathComponent(".secret").path] {
                try FileManager.default.removeItem(atPath: page.string)
                try FileManager.default.createSymbolicLink(atPath: page.string, withDestinationPath: destination)
                await #expect(throws: (any Error).self) { _ = try await directory.storeFile(at: page) }
            }
            // A folder swapped for a link out of the tree: the path still ends in a plain file.
            try folder.write(Data("inner\n".utf8), to: "sub/inner.txt")
            try root.write(Data("planted\n".utf8), to: "elsewhere/inner.txt")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("sub"))
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("sub").path,
                withDestinationPath: root.appendingPathComponent("elsewhere").path
            )
            await #expect(throws: (any Error).self) { _ = try await directory.storeFile(at: directory.root.appending("sub/inner.txt")) }
            // An ordinary file is stored.
            try folder.write(Data("plain\n".utf8), to: "plain.txt")
            let record = try await directory.storeFile(at: directory.root.appending("plain.txt"))
            #expect(record.size == 6)
        }
    }
}
