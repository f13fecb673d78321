import DepotTestFixtures
import Foundation
import Testing

@testable import DepotClient

@Suite("Sync folder lock")
struct FileLockTests {
    @Test("a second lock of the folder is refused while the first is held, and granted once it is released")
    func exclusive() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("sync.lock")
            let first = try #require(try FileLock.acquire(url, exclusive: true, wait: false))
            #expect(try FileLock.acquire(url, exclusive: true, wait: false) == nil)
            first.unlock()
            #expect(try FileLock.acquire(url, exclusive: true, wait: false) != nil)
        }
    }

    /// A process forked by another thread while a sync held the lock shares its open file
    /// description until it runs `exec` (for ever, here: the child is given the descriptor as its
    /// standard input). The lock is released all the same: the next sync must not be refused as
    /// "another sync is running".
    @Test("a lock released while a child process holds a copy of its descriptor is free at once")
    func releasedDespiteChild() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("sync.lock")
            let held = try #require(try FileLock.acquire(url, exclusive: true, wait: false))
            try await ChildProcess.with("sleep", ["60"], input: held.descriptor) { _ in
                held.unlock()
                let again = try FileLock.acquire(url, exclusive: true, wait: false)
                #expect(again != nil)
            }
        }
    }
}
