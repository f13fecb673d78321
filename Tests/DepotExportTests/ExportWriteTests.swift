import DepotExport
import DepotManifest
import DepotTestFixtures
import Foundation
import Synchronization
import Testing
import _NIOFileSystem

/// The one order in which `depot export` and `depot mirror` write a release into a folder,
/// against a source in memory.
@Suite("Writing a release into an export folder")
struct ExportWriteTests {
    /// The content address standing for `name` in these tests.
    static func id(_ name: String) -> String { Fixture.sha256(Data(name.utf8)) }

    /// Release `two` (pages `p2a`, `p2b`) made from release `one` (pages `p1a`, `p2b`): one page
    /// changed. Each page's file is `blobs/{page}`; each document patch is the bytes "patch".
    /// (Names here stand for their ``id(_:)``.)
    final class Source: ExportSource {
        struct State {
            var releases: [String: [UInt8]]
            /// What the folder held each time the source was asked to place a page's files.
            var placements: [(page: String, heldPage: Bool, heldReleases: [String])] = []
            /// Asked to place this page's files: the release `one` goes (retention), and the
            /// placement fails, as a hard link to a removed blob does.
            var removesOneAt: String?
            /// The release documents asked for, in order.
            var asked: [String] = []
        }
        let state: Mutex<State>
        let pages: [String: [UInt8]]

        init(removesOneAt page: String? = nil) throws {
            let encoder = JSONEncoder()
            func release(_ number: Int64, parent: String?, pages: [String]) throws -> [UInt8] {
                let document = ReleaseDocument(
                    number: number,
                    parent: parent.map(ExportWriteTests.id),
                    createdAt: "",
                    files: 2,
                    bytes: 2,
                    pageBits: 1,
                    pages: pages.map(ExportWriteTests.id)
                )
                return Array(try encoder.encode(document))
            }
            let empty = Array(try encoder.encode(ReleasePage(entries: [])))
            pages = [id("p1a"): empty, id("p2a"): empty, id("p2b"): empty]
            state = Mutex(
                State(
                    releases: [
                        id("one"): try release(1, parent: nil, pages: ["p1a", "p2b"]),
                        id("two"): try release(2, parent: "one", pages: ["p2a", "p2b"]),
                    ],
                    removesOneAt: page.map(ExportWriteTests.id)
                )
            )
        }

        func releaseDocument(_ id: String) async throws -> [UInt8]? {
            state.withLock { state in
                state.asked.append(id)
                return state.releases[id]
            }
        }

        func pageDocument(_ sha256: String) async throws -> [UInt8] { try #require(pages[sha256]) }

        func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
            Array("patch".utf8)
        }

        func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
            let removes = state.withLock { state in
                let held = ["one", "two"].filter { (try? folder.contains(try! .release(ExportWriteTests.id($0)))) == true }
                state.placements.append((sha256, (try? folder.contains(try! .page(sha256))) == true, held))
                guard state.removesOneAt == sha256 else { return false }
                state.releases[ExportWriteTests.id("one")] = nil
                return true
            }
            if removes { throw ExportError("no such file: blobs/\(sha256)") }
            try folder.place(try .blob(sha256), bytes: Array(sha256.utf8))
        }
    }

    @Test("the parent first, whole; of each release its files, then its pages, then its document; patches from the parent")
    func order() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            let source = try Source()
            #expect(try await folder.write(release: Self.id("two"), withParent: true, from: source) == 2)
            let names = Dictionary(uniqueKeysWithValues: ["p1a", "p2a", "p2b"].map { (Self.id($0), $0) })
            let placements = source.state.withLock { $0.placements.map { "\(names[$0.page] ?? $0.page) \($0.heldPage) \($0.heldReleases)" } }
            #expect(placements == ["p1a false []", "p2b false []", "p2a false [\"one\"]"], "p2b is the parent's and is not placed twice")
            #expect(source.state.withLock { $0.asked } == [Self.id("two"), Self.id("one")], "each document asked for once")
            let objects: [TreeObject] = try [
                .release(Self.id("one")), .release(Self.id("two")), .page(Self.id("p1a")), .page(Self.id("p2a")), .page(Self.id("p2b")),
                .blob(Self.id("p2a")), .delta(from: Self.id("one"), to: Self.id("two")), .delta(from: Self.id("p1a"), to: Self.id("p2a")),
            ]
            for object in objects { #expect(try folder.contains(object), "\(object)") }
            #expect(try await folder.write(release: Self.id("two"), withParent: true, from: source) == 0, "held: one look, nothing written")
        }
    }

    @Test("a parent retention removes while it is written is left out; the release is written whole")
    func parentRemoved() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            #expect(try await folder.write(release: Self.id("two"), withParent: true, from: try Source(removesOneAt: "p1a")) == 1)
            #expect(try folder.contains(.release(Self.id("two"))) && folder.contains(.page(Self.id("p2a"))) && folder.contains(.page(Self.id("p2b"))))
            #expect(try !folder.contains(.release(Self.id("one"))) && !folder.contains(.delta(from: Self.id("one"), to: Self.id("two"))))
            #expect(try !folder.contains(.delta(from: Self.id("p1a"), to: Self.id("p2a"))))
        }
    }

    @Test("a failure of a release still stored fails the write, and no document names what is missing")
    func failure() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            let source = try Source(removesOneAt: "p2a")
            await #expect(throws: ExportError.self) { try await folder.write(release: Self.id("two"), withParent: true, from: source) }
            #expect(try !folder.contains(.release(Self.id("two"))) && !folder.contains(.page(Self.id("p2a"))))
        }
    }
}

/// What a hostile source (a mirror's origin, a tampered store) can put in a release or page
/// document: each is refused before anything is placed, whoever writes the folder (`depot
/// export`, `depot mirror`), by the rules a client applies.
@Suite("A hostile source's documents, refused before anything is placed")
struct HostileExportSourceTests {
    /// A source serving one release of one page whose documents `damage` changed; it records
    /// whether it was asked to place files.
    final class Source: ExportSource {
        let release: [UInt8]
        let page: [UInt8]
        let placed = Mutex(false)

        init(damage: (inout ReleaseDocument, inout ReleaseEntry) -> Void) throws {
            let sha = ExportWriteTests.id("content")
            var entry = Fixture.entry(size: 7, sha256: sha, lastModified: "", gzip: .init(size: 5, sha256: ExportWriteTests.id("gzip")))
            var release = ReleaseDocument(number: 1, parent: nil, createdAt: "", files: 1, bytes: 7, pageBits: 0, pages: [])
            damage(&release, &entry)
            page = Array(try JSONEncoder().encode(ReleasePage(entries: [entry])))
            if release.pages.isEmpty { release.pages = [Fixture.sha256(Data(page))] }
            self.release = Array(try JSONEncoder().encode(release))
        }

        var id: String { Fixture.sha256(Data(release)) }
        func releaseDocument(_ id: String) async throws -> [UInt8]? { id == self.id ? release : nil }
        func pageDocument(_ sha256: String) async throws -> [UInt8] { page }
        func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
            nil
        }
        func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws { placed.withLock { $0 = true } }
    }

    static let damages: [(String, @Sendable (inout ReleaseDocument, inout ReleaseEntry) -> Void)] = [
        ("a gzip SHA-256 that climbs out of the folder", { _, entry in entry.gzip?.sha256 = "../../victim" }),
        ("a file SHA-256 that names a local file", { _, entry in entry.sha256 = "../../../etc/hostname" }),
        ("a patch base that is a path", { _, entry in entry.patches = [.init(from: "../x", size: 1, sha256: ExportWriteTests.id("p"))] }),
        ("a block index SHA-256 too short", { _, entry in entry.blocks = .init(size: 1, sha256: "abc") }),
        ("an upper-case SHA-256", { _, entry in entry.sha256 = entry.sha256.uppercased() }),
        ("a negative size", { _, entry in entry.size = -1 }),
        ("a page named by a path", { release, _ in release.pages = ["../pages/x"] }),
        ("a parent named by a path", { release, _ in release.parent = "../../releases/x" }),
        ("more pages than its paging gives", { release, _ in release.pageBits = 30 }),
        ("a format this code does not read", { release, _ in release.format = 2 }),
    ]

    @Test("refused, nothing placed", arguments: damages.indices)
    func refused(index: Int) async throws {
        let (what, damage) = Self.damages[index]
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.appendingPathComponent("export").path))
            let source = try Source(damage: damage)
            await #expect(throws: ExportError.self, "\(what)") { try await folder.write(release: source.id, withParent: true, from: source) }
            #expect(!source.placed.withLock { $0 }, "\(what): files placed")
            #expect(try Fixture.files(below: root) == ["export/.lock"], "\(what): something was written")
        }
    }

    @Test("the undamaged source is written: the table's cases fail for their damage alone")
    func undamaged() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            let source = try Source { _, _ in }
            #expect(try await folder.write(release: source.id, withParent: true, from: source) == 1)
            #expect(source.placed.withLock { $0 })
        }
    }
}
