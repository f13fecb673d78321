import DepotFiles
import DepotTestFixtures
import Foundation
import Testing

/// What moves files between contained folders and places a whole folder (backup, restore,
/// import): no call follows a link planted in the folder, and a placement never removes a
/// folder that is not empty.
@Suite("Contained folder: transfers and placement")
struct ContainedFolderTransferTests {
    static let calls: [ContainedFolderTests.Call] = [
        .init(name: "place from a linked file", link: "file", run: { try $0.place("file", from: $0, at: "copy") }, refuses: true),
        .init(name: "place into a linked folder", link: "dir", run: { try $0.place("staged", from: $0, at: "dir/new") }, refuses: true),
        .init(name: "place from a linked folder", link: "dir", run: { try $0.place("dir/keep.txt", from: $0, at: "copy") }, refuses: true),
        .init(
            name: "replace by copying a linked file",
            link: "file",
            run: { try $0.replace("copy", durable: false, copying: "file", from: $0) },
            refuses: true
        ),
        .init(name: "list a folder holding a link", link: "file", run: { _ = try $0.namesRefusingLinks(in: "") }, refuses: true),
        .init(name: "open a linked subfolder", link: "dir", run: { _ = try $0.subfolder("dir") }, refuses: true),
        .init(name: "place a folder over a link", link: "dir", run: { try $0.placeFolder("staged", as: "dir") }, refuses: true),
        .init(name: "remove the tree of a linked folder: the link goes", link: "dir", run: { try $0.removeTree("dir") }, refuses: false),
    ]

    @Test("no transfer follows a link planted in the folder", arguments: calls)
    func planted(_ call: ContainedFolderTests.Call) async throws {
        try await ContainedFolderTests().planted(call)
    }

    @Test("a folder is placed over nothing or an empty folder; a folder that is not empty is kept whole and the placement refused")
    func placement() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ContainedFolder(root: root.path)
            try folder.replace("staging/catalog", with: Array("new".utf8), durable: false)
            try folder.makeFolder("data")
            try folder.replace("data/catalog", with: Array("in use".utf8), durable: false)
            #expect(throws: FolderError.self) { try folder.placeFolder("staging", as: "data") }
            #expect(try folder.read("data/catalog") == Array("in use".utf8))
            try folder.makeFolder("empty")
            try folder.placeFolder("staging", as: "empty")
            #expect(try folder.read("empty/catalog") == Array("new".utf8))
            try folder.placeFolder("empty", as: "fresh")
            #expect(try folder.read("fresh/catalog") == Array("new".utf8) && folder.kind(of: "empty") == nil)
        }
    }
}
