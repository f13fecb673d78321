import DepotManifest
import Foundation
import Testing

@testable import DepotClient

/// What a sync does between two releases, decided from their documents alone.
@Suite("Release plans")
struct ReleasePlanTests {
    static func entry(_ path: String, _ sha: Character, size: Int64 = 1, patches: [ReleaseEntry.Patch]? = nil) -> ReleaseEntry {
        ReleaseEntry(
            path: path,
            version: 1,
            size: size,
            sha256: String(repeating: sha, count: 64),
            md5: String(repeating: "0", count: 32),
            contentType: "text/plain",
            lastModified: "Tue, 14 Nov 2023 22:13:20 GMT",
            gzip: nil,
            patches: patches
        )
    }

    static func release(_ pages: [String]) -> ReleaseDocument {
        ReleaseDocument(number: 1, parent: nil, createdAt: "", files: 0, bytes: 0, pageBits: 0, pages: pages)
    }

    @Test("only pages whose hash differs are compared; a re-paged release compares all")
    func changedPages() {
        let cases: [(before: [String]?, after: [String], expected: ([String], [String]))] = [
            (nil, ["p", "q"], ([], ["p", "q"])),
            (["p", "q"], ["p", "q"], ([], [])),
            (["p", "q"], ["p", "r"], (["q"], ["r"])),
            (["p"], ["p", "r"], (["p"], ["p", "r"])),
        ]
        for (before, after, expected) in cases {
            let pages = ReleasePlan.changedPages(from: before.map(Self.release), to: Self.release(after))
            #expect(pages.before == expected.0 && pages.after == expected.1, "\(String(describing: before)) → \(after)")
        }
    }

    @Test("a changed page's base is the held page at its place; none across a re-paging")
    func pageBases() {
        let cases: [(before: [String]?, after: [String], expected: [String: String])] = [
            (nil, ["p", "q"], [:]),
            (["p", "q"], ["p", "q"], [:]),
            (["p", "q"], ["p", "r"], ["r": "q"]),
            (["p", "q"], ["r", "s"], ["r": "p", "s": "q"]),
            // Two places that became one page: the first place's base.
            (["p", "q"], ["r", "r"], ["r": "p"]),
            (["p"], ["p", "r"], [:]),
        ]
        for (before, after, expected) in cases {
            #expect(
                Self.release(after).pageBases(from: before.map(Self.release)) == expected,
                "\(String(describing: before)) → \(after)"
            )
        }
    }

    @Test("changed and new files are fetched, patches chosen from the content held, files that left are removed")
    func plan() throws {
        let patch = ReleaseEntry.Patch(from: String(repeating: "a", count: 64), size: 1, sha256: String(repeating: "9", count: 64))
        let before = [ReleasePage(entries: [Self.entry("kept", "k"), Self.entry("changed", "a"), Self.entry("gone", "g")])]
        let after = [
            ReleasePage(entries: [Self.entry("kept", "k"), Self.entry("changed", "b", patches: [patch]), Self.entry("new", "n")])
        ]
        let plan = try ReleasePlan(before: before, after: after, removesDeletedFiles: true)
        #expect(plan.fetches.map(\.entry.path) == ["changed", "new"])
        #expect(plan.fetches[0].patch == patch)
        #expect(plan.fetches[1].patch == nil)
        #expect(plan.removals.map(\.path) == ["gone"])
        #expect(try ReleasePlan(before: before, after: after, removesDeletedFiles: false).removals.isEmpty)
    }

    /// (why, entry gzip size, staged intact, size of the file at the path, patch failed) → action,
    /// for a 1000-byte file held at 700 bytes, with a patch from it, and a 500-byte limit for
    /// downloads through memory.
    @Test("each file's action follows from what the folder holds", arguments: Self.actionCases.indices)
    func action(index: Int) {
        let (why, gzipSize, stagedIntact, heldFileSize, patchFailed, expected) = Self.actionCases[index]
        let patch = ReleaseEntry.Patch(from: String(repeating: "a", count: 64), size: 40, sha256: String(repeating: "9", count: 64))
        var entry = Self.entry("f", "b", size: 1000, patches: [patch])
        entry.gzip = gzipSize.map { ReleaseEntry.Variant(size: $0, sha256: String(repeating: "c", count: 64)) }
        let fetch = ReleasePlan.Fetch(entry: entry, held: Self.entry("f", "a", size: 700))
        let action = fetch.action(stagedIntact: stagedIntact, heldFileSize: heldFileSize, patchFailed: patchFailed, inMemoryLimit: 500)
        #expect(action == expected(patch), "\(why)")
    }

    static let actionCases: [(String, Int64?, Bool, Int64?, Bool, @Sendable (ReleaseEntry.Patch) -> ReleasePlan.Fetch.Action)] = [
        ("staged intact by an interrupted sync: nothing", 400, true, 700, false, { _ in .alreadyStaged }),
        ("the held file is the patch's base: patch", 400, false, 700, false, { .patch($0) }),
        ("the file at the path is not the held content (other size): no patch", nil, false, 650, false, { _ in .stream(gzip: false) }),
        ("no file at the path: no patch", nil, false, nil, false, { _ in .stream(gzip: false) }),
        ("the patch failed: the smaller variant, gzip, through memory", 400, false, 700, true, { _ in .download(gzip: true) }),
        ("a gzip variant above the limit is streamed", 600, false, nil, false, { _ in .stream(gzip: true) }),
        ("a gzip variant no smaller is not used", 1000, false, nil, false, { _ in .stream(gzip: false) }),
    ]

    @Test("content shared by several paths is copied for all but the last, which takes the staged file")
    func sharedContent() throws {
        let after = [ReleasePage(entries: [Self.entry("a", "s"), Self.entry("b", "s"), Self.entry("c", "t")])]
        let moves = try ReleasePlan(before: [], after: after, removesDeletedFiles: true).moves
        #expect(moves.map(\.path) == ["a", "b", "c"])
        #expect(moves.map(\.copy) == [true, false, false])
        #expect(moves.map(\.staged) == [String(repeating: "s", count: 64), String(repeating: "s", count: 64), String(repeating: "t", count: 64)])
        #expect(moves[0].modified == 1_700_000_000)
    }

    @Test("paths that would be one file on some file systems refuse the whole release")
    func collisions() {
        #expect(throws: SyncError.self) {
            try ReleasePlan(
                before: [],
                after: [ReleasePage(entries: [Self.entry("A.txt", "a"), Self.entry("a.txt", "b")])],
                removesDeletedFiles: true
            )
        }
    }
}
