import DepotFiles
import DepotTestFixtures
import Foundation
import Testing

@Suite("Folder lock")
struct FileLockTests {
    @Test("a second lock of the folder is refused while the first is held, and granted once it is released")
    func exclusive() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.path)
            let first = try #require(try FileLock.acquire("sync.lock", in: folder, exclusive: true, wait: false))
            #expect(try FileLock.acquire("sync.lock", in: folder, exclusive: true, wait: false) == nil)
            first.unlock()
            #expect(try FileLock.acquire("sync.lock", in: folder, exclusive: true, wait: false) != nil)
        }
    }

    /// A process forked by another thread while a sync held the lock shares its open file
    /// description until it runs `exec` (for ever, here: the child is given the descriptor as its
    /// standard input). The lock is released all the same: the next sync must not be refused as
    /// "another sync is running".
    @Test("a lock released while a child process holds a copy of its descriptor is free at once")
    func releasedDespiteChild() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.path)
            let held = try #require(try FileLock.acquire("sync.lock", in: folder, exclusive: true, wait: false))
            try await ChildProcess.with("sleep", ["60"], input: held.descriptor) { _ in
                held.unlock()
                let again = try FileLock.acquire("sync.lock", in: folder, exclusive: true, wait: false)
                #expect(again != nil)
            }
        }
    }

    @Test("a link planted at the lock's name is refused: its target is neither created nor locked")
    func plantedLink() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.appendingPathComponent("folder").path)
            let target = root.appendingPathComponent("elsewhere")
            try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("folder/sync.lock"), withDestinationURL: target)
            #expect(throws: FolderError.self) { try FileLock.acquire("sync.lock", in: folder, exclusive: true) }
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }
}
