import DepotFiles
import DepotTestFixtures
import Foundation
import Testing

/// What a folder touched through its descriptor does with links planted inside it: each call,
/// as a table, refuses or removes the link itself, and never reaches what it points to.
@Suite("Contained folder")
struct ContainedFolderTests {
    /// One call on a path whose folder (`dir`) or whose last name (`file`) is a link to a folder
    /// (or file) outside holding `keep.txt`.
    struct Call: CustomStringConvertible, Sendable {
        let name: String
        /// Where the link is planted, in the folder.
        let link: String
        let run: @Sendable (ContainedFolder) throws -> Void
        /// Whether the call is to throw (refused) rather than go on without touching the target.
        let refuses: Bool
        var description: String { name }
    }

    static let calls: [Call] = [
        Call(name: "read through a linked folder", link: "dir", run: { _ = try $0.read("dir/keep.txt") }, refuses: true),
        Call(
            name: "open for writing through a linked folder",
            link: "dir",
            run: { close(try $0.open("dir/keep.txt", mode: .truncate)) },
            refuses: true
        ),
        Call(name: "open for writing a linked file", link: "file", run: { close(try $0.open("file", mode: .truncate)) }, refuses: true),
        Call(name: "create in a linked folder", link: "dir", run: { close(try $0.create("dir/new.txt")) }, refuses: true),
        Call(
            name: "replace through a linked folder",
            link: "dir",
            run: { try $0.replace("dir/keep.txt", with: [1, 2], durable: true) },
            refuses: true
        ),
        Call(name: "rename into a linked folder", link: "dir", run: { try $0.rename("staged", to: "dir/keep.txt") }, refuses: true),
        Call(name: "make a folder below a linked folder", link: "dir", run: { try $0.makeFolder("dir/sub") }, refuses: true),
        Call(name: "make a folder where a link is", link: "dir", run: { try $0.makeFolder("dir") }, refuses: true),
        Call(name: "list a linked folder", link: "dir", run: { _ = try $0.names(in: "dir") }, refuses: true),
        Call(name: "remove in a linked folder", link: "dir", run: { try $0.remove("dir/keep.txt") }, refuses: true),
        Call(name: "remove a linked file: the link goes", link: "file", run: { try $0.remove("file") }, refuses: false),
        Call(name: "empty the folder holding a link: the link goes", link: "dir", run: { try $0.removeContents(of: "") }, refuses: false),
        Call(
            name: "replace a linked file: the link is replaced",
            link: "file",
            run: { try $0.replace("file", with: [1, 2], durable: false) },
            refuses: false
        ),
    ]

    @Test("no call follows a link planted in the folder", arguments: calls)
    func planted(_ call: Call) async throws {
        try await withTemporaryDirectory { root in
            let outside = root.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            let kept = Data("not Depot's".utf8)
            try kept.write(to: outside.appendingPathComponent("keep.txt"))
            let inside = root.appendingPathComponent("folder")
            let folder = try ContainedFolder(root: inside.path)
            try Data("staged".utf8).write(to: inside.appendingPathComponent("staged"))
            let target = call.link == "dir" ? outside : outside.appendingPathComponent("keep.txt")
            try FileManager.default.createSymbolicLink(at: inside.appendingPathComponent(call.link), withDestinationURL: target)

            if call.refuses {
                #expect(throws: FolderError.self) { try call.run(folder) }
            } else {
                try call.run(folder)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["keep.txt"])
            #expect(try Data(contentsOf: outside.appendingPathComponent("keep.txt")) == kept)
        }
    }

    @Test("a rename of nothing says so; a file replaced is whole, with no temporary file left")
    func renameAndReplace() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.path)
            #expect(try !folder.rename("missing", to: "a/b"))
            try folder.replace("a/b", with: Array("one".utf8), durable: true)
            try folder.replace("a/b", with: Array("two".utf8), durable: false)
            #expect(try folder.read("a/b") == Array("two".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("a").path) == ["b"])
            #expect(try folder.rename("a/b", to: "c/d"))
            #expect(try folder.read("c/d") == Array("two".utf8))
        }
    }
}
