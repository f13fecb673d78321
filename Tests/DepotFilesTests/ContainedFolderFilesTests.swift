import DepotFiles
import DepotTestFixtures
import Foundation
import Testing

/// What a sync does to its folder's files besides creating, renaming and removing them (map,
/// copy, time, fsync, a tree listed): no call reads, writes or lists through a link planted in
/// the folder.
@Suite("Contained folder: a sync's files")
struct ContainedFolderFilesTests {
    static let calls: [ContainedFolderTests.Call] = [
        .init(name: "map a linked file", link: "file", run: { _ = try $0.map("file") }, refuses: true),
        .init(name: "map through a linked folder", link: "dir", run: { _ = try $0.map("dir/keep.txt") }, refuses: true),
        .init(name: "copy a linked file", link: "file", run: { try $0.copy("file", to: "copy") }, refuses: true),
        .init(name: "copy into a linked folder", link: "dir", run: { try $0.copy("staged", to: "dir/new") }, refuses: true),
        .init(name: "copy over a link", link: "file", run: { try $0.copy("staged", to: "file") }, refuses: true),
        .init(name: "set the time of a linked file", link: "file", run: { try $0.setModificationTime(of: "file", seconds: 0) }, refuses: true),
        .init(name: "sync a linked file", link: "file", run: { try $0.synchronize(file: "file") }, refuses: true),
        .init(name: "list the tree of a linked folder", link: "dir", run: { _ = try $0.tree(below: "dir") }, refuses: true),
        .init(name: "list a tree holding a link: listed, not followed", link: "dir", run: { _ = try $0.tree(below: "") }, refuses: false),
    ]

    @Test("no call follows a link planted in the folder", arguments: calls)
    func planted(_ call: ContainedFolderTests.Call) async throws {
        try await ContainedFolderTests().planted(call)
    }

    @Test("a file mapped holds its bytes (an empty one none); a copy is a new file with the same bytes; a time set is the file's")
    func mapCopyAndTime() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.path)
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try folder.replace("a/file", with: bytes, durable: false)
            try folder.replace("empty", with: [], durable: false)
            let mapped = try #require(try folder.map("a/file"))
            #expect(Array(mapped.bytes) == bytes)
            #expect(try folder.map("empty")?.bytes.count == 0)
            #expect(try folder.map("missing") == nil)

            try folder.copy("a/file", to: "b/copy")
            #expect(try folder.read("b/copy") == bytes)
            #expect(throws: FolderError.self) { try folder.copy("empty", to: "b/copy") }
            #expect(try folder.read("b/copy") == bytes, "a copy never replaces")

            try folder.setModificationTime(of: "b/copy", seconds: 1_000_000_000)
            let status = try #require(try folder.status(of: "b/copy"))
            #if canImport(Darwin)
            #expect(status.st_mtimespec.tv_sec == 1_000_000_000)
            #else
            #expect(status.st_mtim.tv_sec == 1_000_000_000)
            #endif
            try folder.synchronize(file: "b/copy")
        }
    }

    @Test("a tree lists every entry below a folder, folders before what they hold, and a link as a link")
    func tree() async throws {
        try await withTemporaryDirectory { root in
            let outside = root.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: outside.appendingPathComponent("keep.txt"))
            let folder = try ContainedFolder(root: root.appendingPathComponent("folder").path)
            try folder.replace("top/a/one", with: [1], durable: false)
            try folder.replace("top/two", with: [2], durable: false)
            try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("folder/top/link"), withDestinationURL: outside)
            let tree = try folder.tree(below: "top")
            #expect(tree.map(\.path) == ["top/a", "top/a/one", "top/link", "top/two"])
            #expect(tree.map(\.kind) == [S_IFDIR, S_IFREG, S_IFLNK, S_IFREG])
            #expect(try folder.tree(below: "missing").isEmpty)
        }
    }
}
