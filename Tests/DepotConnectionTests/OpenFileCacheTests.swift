import DepotTestFixtures
import Foundation
import NIOCore
import Testing
import _NIOFileSystem

@testable import DepotConnection

/// ``OpenFileCache`` keeps the files direct answers send from open between answers: bounded,
/// never closing a file an answer still sends from, and never serving a file that is no longer
/// the one at its path.
@Suite("Open file cache")
struct OpenFileCacheTests {
    @Test("A file taken twice is opened once")
    func sharedFile() async throws {
        try await withFiles(["a"]) { paths in
            let cache = OpenFileCache(capacity: 4)
            let first = try #require(cache.open(paths[0]))
            let second = try #require(cache.open(paths[0]))
            #expect(first === second && cache.count == 1)
            first.release()
            second.release()
            #expect(first.handle.isOpen)
            cache.closeAll()
        }
    }

    @Test("It keeps at most its capacity open, closing the least recently used")
    func capacity() async throws {
        try await withFiles(["a", "b", "c"]) { paths in
            let cache = OpenFileCache(capacity: 2)
            let a = try #require(cache.open(paths[0]))
            a.release()
            let b = try #require(cache.open(paths[1]))
            b.release()
            let again = try #require(cache.open(paths[0]))
            again.release()
            let c = try #require(cache.open(paths[2]))
            c.release()
            #expect(cache.count == 2)
            #expect(a.handle.isOpen && !b.handle.isOpen && c.handle.isOpen)
            cache.closeAll()
        }
    }

    @Test("A file evicted while an answer sends from it closes when that answer is done")
    func evictedInUse() async throws {
        try await withFiles(["a", "b"]) { paths in
            let cache = OpenFileCache(capacity: 1)
            let a = try #require(cache.open(paths[0]))
            let b = try #require(cache.open(paths[1]))
            #expect(cache.count == 1 && a.handle.isOpen)
            a.release()
            #expect(!a.handle.isOpen)
            b.release()
            cache.closeAll()
            #expect(!b.handle.isOpen)
        }
    }

    @Test("A file replaced or removed since it was opened is opened anew")
    func replacedFile() async throws {
        try await withFiles(["a"]) { paths in
            let cache = OpenFileCache(capacity: 4)
            let old = try #require(cache.open(paths[0]))
            old.release()
            let replacement = paths[0].string + ".new"
            try Data("new content".utf8).write(to: URL(fileURLWithPath: replacement))
            #expect(rename(replacement, paths[0].string) == 0)
            let new = try #require(cache.open(paths[0]))
            #expect(new !== old && !old.handle.isOpen)
            let content = try new.handle.withUnsafeFileDescriptor { descriptor in
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = pread(descriptor, &bytes, bytes.count, 0)
                return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
            }
            #expect(content == "new content")
            new.release()
            unlink(paths[0].string)
            #expect(cache.open(paths[0]) == nil)
            #expect(!new.handle.isOpen && cache.count == 0)
        }
    }

    @Test("A file no answer took between two sweeps is closed")
    func sweep() async throws {
        try await withFiles(["a", "b"]) { paths in
            let cache = OpenFileCache(capacity: 4)
            let a = try #require(cache.open(paths[0]))
            a.release()
            cache.sweep()
            let b = try #require(cache.open(paths[1]))
            b.release()
            #expect(a.handle.isOpen && cache.count == 2)
            cache.sweep()
            #expect(!a.handle.isOpen && b.handle.isOpen && cache.count == 1)
            cache.sweep()
            #expect(!b.handle.isOpen && cache.count == 0)
        }
    }

    @Test("With capacity 0, or once closed, each answer's file closes when it is done")
    func nothingKept() async throws {
        try await withFiles(["a"]) { paths in
            let none = OpenFileCache(capacity: 0)
            let a = try #require(none.open(paths[0]))
            #expect(none.count == 0 && a.handle.isOpen)
            a.release()
            #expect(!a.handle.isOpen)

            let cache = OpenFileCache(capacity: 4)
            let inUse = try #require(cache.open(paths[0]))
            cache.closeAll()
            #expect(inUse.handle.isOpen && cache.count == 0)
            inUse.release()
            #expect(!inUse.handle.isOpen)
            let later = try #require(cache.open(paths[0]))
            later.release()
            #expect(!later.handle.isOpen && cache.count == 0)
        }
    }

    /// Files named `names` with a few bytes each, in a temporary folder.
    private func withFiles(_ names: [String], _ body: ([FilePath]) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let paths = try names.map { name in FilePath(try folder.write(Data("content of \(name)".utf8), to: name).path) }
            try await body(paths)
        }
    }
}
