import DepotManifest
import Testing

@testable import DepotServer

/// ``ContentTarget`` reads a blob URL's name through ``DepotManifest/TreeObject``: the routes
/// take exactly the names of the tree's layout, and no other table of suffixes decides.
@Suite("Content targets")
struct ContentTargetTests {
    static let a = String(repeating: "a", count: 64)

    /// Names under `/blobs/`: the file and its variants, then names no object has.
    static let blobNames: [String] = [
        a, "\(a).gz", "\(a).br", "\(a).zst", "\(a).blocks", "\(a).zblocks",
        "\(a).tar", "\(a).gz.gz", "\(a).br.gz", "\(a).zstd", "\(a).BR", String(repeating: "A", count: 64), String(repeating: "a", count: 63),
        "x", "x.gz", ".gz",
    ]

    @Test("a blob URL names a target exactly when it is an object of the tree", arguments: blobNames)
    func blobNamesAgree(name: String) throws {
        let object = try? TreeObject(path: TreeObject.Kind.blob.folder! + "/" + name)
        let resolved = ContentTarget.resolve(requestTarget: "/" + TreeObject.Kind.blob.folder! + "/" + name, routedSegments: ["blobs", "files"])
        #expect((resolved != nil) == (object != nil), "\(name): \(String(describing: resolved?.target))")
        if let object { #expect(resolved?.target == .object(object)) }
    }
}
