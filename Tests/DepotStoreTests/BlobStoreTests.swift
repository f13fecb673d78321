import DepotFiles
import DepotHTTP
import DepotStore
import DepotTestFixtures
import Foundation
import NIOCore
import Testing
import _NIOFileSystem

/// The blob store on a real folder: one pass of digests and gzip, and collection that never
/// deletes a blob whose writer has not recorded it yet.
@Suite("Blob store")
struct BlobStoreTests {
    static let future = HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970) + 3600)

    static func chunks(_ data: Data) -> [ByteBuffer] {
        stride(from: 0, to: data.count, by: 7000).map { ByteBuffer(bytes: data[$0..<min($0 + 7000, data.count)]) }
    }

    @Test("ingest computes SHA-256, MD5 and a gzip variant that gunzips to the content")
    func ingest() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let record = try await store.ingest(Self.chunks(Fixture.text).async)
            #expect(record.sha256 == Fixture.sha256(Fixture.text))
            #expect(record.md5 == Fixture.md5(Fixture.text))
            #expect(record.size == Int64(Fixture.text.count))
            let gzip = try #require(record.gzip)
            let stored = try Data(contentsOf: URL(fileURLWithPath: store.gzipPath(forSHA256: record.sha256).string))
            #expect(Int64(stored.count) == gzip.size)
            #expect(Fixture.sha256(stored) == gzip.sha256)
            #expect(try Fixture.gunzip(Array(stored)) == Fixture.text)
            let incompressible = try await store.ingest(Self.chunks(Fixture.noise).async)
            #expect(incompressible.gzip == nil)
        }
    }

    @Test("an ingest cancelled mid-content (a server stopping mid-scan) closes and removes its temporary files, and does not crash")
    func cancelledIngest() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let (chunks, input) = AsyncStream.makeStream(of: ByteBuffer.self)
            let (started, began) = AsyncStream.makeStream(of: Void.self)
            let outcome = await withTaskGroup(of: (any Error)?.self) { group in
                group.addTask {
                    do {
                        _ = try await store.ingest(
                            chunks.map { chunk in
                                began.yield()
                                return chunk
                            }
                        )
                        return nil
                    } catch {
                        return error
                    }
                }
                input.yield(ByteBuffer(bytes: Fixture.text))
                for await _ in started { break }
                group.cancelAll()
                return await group.next() ?? nil
            }
            #expect(outcome != nil, "a cancelled ingest stores nothing")
            let temporary = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)
            #expect(temporary.filter { $0.hasSuffix(".blob") || $0.hasSuffix(".gz") }.isEmpty, "\(temporary)")
        }
    }

    @Test(
        "a block index made as the content arrives, in pieces of any size, is the one made from the stored file, byte for byte",
        arguments: [7000, 1 << 20, 3 << 20]
    )
    func indexWhileReceived(piece: Int) async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            // 2.5 MiB of text with noise between: blocks that deflate and blocks that do not,
            // and a short last block.
            var content = Data()
            while content.count < 5 << 19 { content += Fixture.text + Fixture.noise.prefix(3000) }
            let pieces = stride(from: 0, to: content.count, by: piece).map { ByteBuffer(bytes: content[$0..<min($0 + piece, content.count)]) }
            let tap = try BlockIndexTap(packed: "tapped.zblocks", in: ContainedFolder(root: folder.path), blockSize: 1024)
            let record = try await store.ingest(pieces.async, indexing: tap)
            let tapped = try tap.finish()
            let madePath = folder.appendingPathComponent("made.zblocks").path
            let made = try BlockIndexMaker.make(
                content: store.path(forSHA256: record.sha256).string,
                packed: "made.zblocks",
                in: ContainedFolder(root: folder.path),
                blockSize: 1024
            )
            #expect(tapped == made)
            #expect(try Data(contentsOf: URL(fileURLWithPath: tap.packedPath)) == Data(contentsOf: URL(fileURLWithPath: madePath)))
        }
    }

    @Test(
        "a block index that cannot be written (a full disk: a 1 MiB file system) stops indexing, not the upload; finishing it says why",
        .enabled(if: getuid() == 0)
    )
    func indexOnFullDisk() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let content = Fixture.pseudoRandom(count: 3 << 20, seed: 9)
            // A real file system of 1 MiB for the index only (needs root to mount): the packed
            // blocks of 3 MiB of noise cannot fit there; the store's own folder has room.
            let small = folder.appendingPathComponent("small")
            try FileManager.default.createDirectory(at: small, withIntermediateDirectories: false)
            let mount = try await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small.path])
            try #require(mount.status == 0)
            // Unmounted however the test ends (lazily: the tap's descriptor may still be open);
            // scripts/test unmounts what a crash leaves.
            func unmount() async throws { _ = try await ChildProcess.run("/bin/umount", ["-l", small.path]) }
            do {
                let tap = try BlockIndexTap(packed: "packed.zblocks", in: ContainedFolder(root: small.path, creating: false), blockSize: 1024)
                let record = try await store.ingest(Self.chunks(content).async, indexing: tap)
                #expect(record.sha256 == Fixture.sha256(content))
                #expect(try Data(contentsOf: URL(fileURLWithPath: store.path(forSHA256: record.sha256).string)) == content)
                let error = #expect(throws: StoreError.self) { try tap.finish() }
                #expect(error?.code == .noSpace, "\(error?.message ?? "")")
            } catch {
                try await unmount()
                throw error
            }
            try await unmount()
        }
    }

    @Test("a held blob survives collection; once released and unreferenced, it goes")
    func holds() async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let record = try await store.ingest(Self.chunks(Fixture.text).async)
            let path = store.path(forSHA256: record.sha256).string
            #expect(try await store.removeBlobs(olderThan: Self.future) { [] } == 0)
            #expect(FileManager.default.fileExists(atPath: path))
            store.release(record.sha256)
            #expect(try await store.removeBlobs(olderThan: Self.future) { [record.sha256] } == 0)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try await store.removeBlobs(olderThan: Self.future) { [] } == 1)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: path + ".gz"))
        }
    }

    @Test("a failed verification stores nothing and holds nothing")
    func failedVerification() async throws {
        struct Refused: Error {}
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            await #expect(throws: Refused.self) {
                try await store.ingest(Self.chunks(Fixture.text).async) { _ in throw Refused() }
            }
            #expect(!FileManager.default.fileExists(atPath: store.path(forSHA256: Fixture.sha256(Fixture.text)).string))
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory.string).isEmpty)
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an async sequence.
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
