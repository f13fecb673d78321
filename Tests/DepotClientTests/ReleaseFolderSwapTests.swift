import DepotFiles
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotClient

/// Issue 57, defects 16 and 26: the tree held is what a new release tree is made of, and a
/// local process may change it while the sync runs.
@Suite("Release folders: swaps during a sync")
struct ReleaseFolderSwapTests {
    @Test(
        "issue 57, defect 16: a folder of the held tree swapped for a link during the download: nothing outside is made read-only or linked into release 2"
    )
    func swapDuringDownload() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("big.bin", Data(repeating: 1, count: 700_000)), ("sub/keep.txt", Data("keep\n".utf8))])
            try await withTemporaryDirectory { outside in
                let secret = outside.appendingPathComponent("keep.txt")
                try Data("secret\n".utf8).write(to: secret)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
                try await withTemporaryDirectory { folder in
                    let client = ReleaseFoldersTests.client(server, folder)
                    _ = try await client.sync()
                    let heldName = ReleaseFoldersTests.trees(folder)[0]
                    let held = folder.appendingPathComponent(ReleaseTrees.path + "/" + heldName)
                    try await server.publish([("big.bin", Data(repeating: 2, count: 700_000))])
                    let swapped = Mutex(false)
                    let sub = held.appendingPathComponent("sub")
                    // After the plan, while big.bin downloads: `sub` becomes a link to a folder outside.
                    _ = try? await client.sync { progress in
                        swapped.withLock { done in
                            guard !done, progress.file != nil else { return }
                            done = true
                            try? FileManager.default.moveItem(at: sub, to: held.appendingPathComponent("sub.old"))
                            try? FileManager.default.createSymbolicLink(at: sub, withDestinationURL: outside)
                        }
                    }
                    #expect(swapped.withLock { $0 })
                    let mode = try FileManager.default.attributesOfItem(atPath: secret.path)[.posixPermissions] as? Int
                    #expect(mode == 0o600, "the file outside was made \(String(mode ?? 0, radix: 8))")
                    let secretInode = try FileManager.default.attributesOfItem(atPath: secret.path)[.systemFileNumber] as? Int
                    for tree in ReleaseFoldersTests.trees(folder) where tree != heldName {
                        let file = folder.appendingPathComponent(ReleaseTrees.path + "/" + tree + "/sub/keep.txt")
                        let inode = try? FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
                        #expect(inode != secretInode, "\(tree) links the file outside")
                        if inode != nil { #expect(try Data(contentsOf: file) == Data("keep\n".utf8)) }
                    }
                }
            }
        }
    }

    @Test(
        "issue 57, defect 26: a write to a held file that release 2 links, between --download-only and --apply: the apply refuses, the next sync has the publisher's bytes"
    )
    func writeBeforeApply() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8)), ("keep.txt", Data("keep\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = ReleaseFoldersTests.client(server, folder)
                _ = try await client.sync()
                try await server.publish([("a.txt", Data("two\n".utf8))])
                let downloaded = try #require(try await client.download().release?.number)
                // A process that can write to the held file (root, or one that made it writable).
                let held = try #require(SyncTests.contents(folder, "current/keep.txt"))
                #expect(held == Data("keep\n".utf8))
                let path = folder.appendingPathComponent("current/keep.txt").path
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.write(contentsOf: Data("evil\n".utf8))
                try handle.close()
                let applied = try? client.apply()
                if applied != nil {
                    // Applied: release 2 must still hold the publisher's bytes.
                    #expect(SyncTests.contents(folder, "current/keep.txt") == Data("keep\n".utf8))
                } else {
                    _ = try await client.sync()
                    #expect(client.currentRelease?.number ?? 0 >= downloaded)
                    #expect(SyncTests.contents(folder, "current/keep.txt") == Data("keep\n".utf8))
                    #expect(SyncTests.contents(folder, "current/a.txt") == Data("two\n".utf8))
                }
            }
        }
    }
}
