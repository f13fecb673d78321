import DepotManifest
import DepotStore
import DepotTestFixtures
import Foundation
import Synchronization
import Testing
import _NIOFileSystem

/// The one order in which `depot export` and `depot mirror` write a release into a folder,
/// against a source in memory.
@Suite("Writing a release into an export folder")
struct ExportWriteTests {
    /// Release `two` (pages `p2a`, `p2b`) made from release `one` (pages `p1a`, `p2b`): one page
    /// changed. Each page's file is `blobs/{page}`; each document patch is the bytes "patch".
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
                let document = ReleaseDocument(number: number, parent: parent, createdAt: "", files: 2, bytes: 2, pageBits: 1, pages: pages)
                return Array(try encoder.encode(document))
            }
            let empty = Array(try encoder.encode(ReleasePage(entries: [])))
            pages = ["p1a": empty, "p2a": empty, "p2b": empty]
            state = Mutex(
                State(
                    releases: [
                        "one": try release(1, parent: nil, pages: ["p1a", "p2b"]), "two": try release(2, parent: "one", pages: ["p2a", "p2b"]),
                    ],
                    removesOneAt: page
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
                state.placements.append((sha256, folder.contains("pages/\(sha256)"), folder.list("releases").sorted()))
                guard state.removesOneAt == sha256 else { return false }
                state.releases["one"] = nil
                return true
            }
            if removes { throw StoreError(.io, "no such file: blobs/\(sha256)") }
            try folder.place("blobs/\(sha256)", bytes: Array(sha256.utf8))
        }
    }

    @Test("the parent first, whole; of each release its files, then its pages, then its document; patches from the parent")
    func order() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            let source = try Source()
            #expect(try await folder.write(release: "two", withParent: true, from: source) == 2)
            let placements = source.state.withLock { $0.placements.map { "\($0.page) \($0.heldPage) \($0.heldReleases)" } }
            #expect(placements == ["p1a false []", "p2b false []", "p2a false [\"one\"]"], "p2b is the parent's and is not placed twice")
            #expect(source.state.withLock { $0.asked } == ["two", "one"], "each document asked for once")
            for path in ["releases/one", "releases/two", "pages/p1a", "pages/p2a", "pages/p2b", "blobs/p2a", "deltas/one/two", "deltas/p1a/p2a"] {
                #expect(folder.contains(path), "\(path)")
            }
            #expect(try await folder.write(release: "two", withParent: true, from: source) == 0, "held: one look, nothing written")
        }
    }

    @Test("a parent retention removes while it is written is left out; the release is written whole")
    func parentRemoved() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            #expect(try await folder.write(release: "two", withParent: true, from: try Source(removesOneAt: "p1a")) == 1)
            #expect(folder.contains("releases/two") && folder.contains("pages/p2a") && folder.contains("pages/p2b"))
            #expect(!folder.contains("releases/one") && !folder.contains("deltas/one/two") && !folder.contains("deltas/p1a/p2a"))
        }
    }

    @Test("a failure of a release still stored fails the write, and no document names what is missing")
    func failure() async throws {
        try await withTemporaryDirectory { root in
            let folder = try ExportFolder(root: FilePath(root.path))
            let source = try Source(removesOneAt: "p2a")
            await #expect(throws: StoreError.self) { try await folder.write(release: "two", withParent: true, from: source) }
            #expect(!folder.contains("releases/two") && !folder.contains("pages/p2a"))
        }
    }
}
