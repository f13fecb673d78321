import DepotManifest
import Testing

/// The tree's layout: every object's path, and every path that is no object's refused.
@Suite("The tree's objects and their paths")
struct TreeObjectTests {
    static let a = String(repeating: "a", count: 64)
    static let b = String(repeating: "0123456789abcdef", count: 4)

    static let objects: [(TreeObject, String, TreeObject.Kind)] = try! [
        (.channel("stable"), "channels/stable", .channel),
        (.manifest, "manifest.json", .manifest),
        (.release(a), "releases/\(a)", .release),
        (.page(a), "pages/\(a)", .page),
        (.pack(ofPage: a), "packs/\(a)", .pack),
        (.brotliPack(ofPage: a), "packs/\(a).br", .brotliPack),
        (.blob(a), "blobs/\(a)", .blob),
        (.gzip(of: a), "blobs/\(a).gz", .gzip),
        (.brotli(of: a), "blobs/\(a).br", .brotli),
        (.zstd(of: a), "blobs/\(a).zst", .zstd),
        (.blockIndex(of: a), "blobs/\(a).blocks", .blockIndex),
        (.blockPack(of: a), "blobs/\(a).zblocks", .blockPack),
        (.delta(from: a, to: b), "deltas/\(a)/\(b)", .delta),
        (.root(1), "roots/1.json", .root),
        (.root(12), "roots/12.json", .root),
    ]

    @Test("each object's path and URL, and the path parsed back to the object", arguments: objects.indices)
    func paths(index: Int) throws {
        let (object, path, kind) = Self.objects[index]
        #expect(object.path == path)
        #expect(object.url == "/" + path)
        #expect(object.kind == kind)
        #expect(try TreeObject(path: path) == object)
    }

    static let refusedNames: [String] = [
        "", "..", "../x", "a/b", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "A", count: 64),
        String(repeating: "g", count: 64), "\(a)\n", "\(a)/", "/\(a)",
    ]

    @Test("a name that is no content address names no object", arguments: refusedNames)
    func refusedAddresses(name: String) {
        #expect(throws: TreeObject.Problem.self) { try TreeObject.blob(name) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.gzip(of: name) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.release(name) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.page(name) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.delta(from: name, to: Self.a) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.delta(from: Self.a, to: name) }
        #expect(throws: TreeObject.Problem.self) { try TreeObject.channel(name + "/x") }
    }

    static let refusedPaths: [String] = [
        "", "/", "blobs", "blobs/", "blobs/\(a).tar", "blobs/\(a).gz.gz", "blobs/\(a).br.gz", "blobs/\(a).zstd", "blobs/\(a).BR", "blobs/\(a)/x",
        "/blobs/\(a)", "blobs//\(a)", "releases/\(a)/",
        "deltas/\(a)", "deltas/\(a)/\(b)/c", "roots/0.json", "roots/-1.json", "roots/01.json", "roots/1", "roots/1.json.gz",
        "roots/99999999999999999999.json", "channels/Stable", "channels/../x", "manifest.json/x", ".lock", ".partial/x", "packs/x",
        "unknown/\(a)",
    ]

    @Test("a path that is no object's is refused", arguments: refusedPaths)
    func refusedPath(path: String) {
        #expect(throws: TreeObject.Problem.self) { try TreeObject(path: path) }
    }

    @Test("a problem's message quotes the name, its control characters escaped and cut short")
    func message() {
        #expect(throws: TreeObject.Problem(message: "\"a\\nb\" is not the name of a file (64 lower-case hex digits)")) { try TreeObject.blob("a\nb") }
        let long = String(repeating: "x", count: 200)
        #expect(throws: TreeObject.Problem(message: "\"\(String(repeating: "x", count: 80))…\" is not the name of a file (64 lower-case hex digits)"))
        {
            try TreeObject.blob(long)
        }
    }

    @Test("the content address and base an object is named by")
    func addresses() throws {
        #expect(try TreeObject.gzip(of: Self.a).address == Self.a)
        #expect(try TreeObject.delta(from: Self.a, to: Self.b).address == Self.b)
        #expect(try TreeObject.delta(from: Self.a, to: Self.b).base == Self.a)
        #expect(try TreeObject.root(3).address == nil)
        #expect(TreeObject.url(ofRelease: Self.a) == "/releases/\(Self.a)")
        #expect(TreeObject.url(ofRelease: "../x") == "")
    }
}
