import DepotManifest
import DepotPolicy
import Testing

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

    /// (why, entry gzip size, staged intact, local copy, patches listed, block indexes (held, new))
    /// → the ways tried in order, for a 1000-byte file and a 500-byte limit for downloads
    /// through memory.
    @Test("each file's ways to fetch follow from what the folder holds", arguments: Self.actionCases.indices)
    func actions(index: Int) {
        let (why, gzipSize, stagedIntact, local, patches, (heldIndexed, newIndexed), expected) = Self.actionCases[index]
        let index = ReleaseEntry.Variant(size: 10, sha256: String(repeating: "d", count: 64))
        var entry = Self.entry("f", "b", size: 1000, patches: patches)
        entry.gzip = gzipSize.map { ReleaseEntry.Variant(size: $0, sha256: String(repeating: "c", count: 64)) }
        entry.blocks = newIndexed ? index : nil
        var held = Self.entry("f", "a", size: 700)
        held.blocks = heldIndexed ? index : nil
        let actions = ReleasePlan.Fetch(entry: entry, held: held).actions(stagedIntact: stagedIntact, local: local, inMemoryLimit: 500)
        #expect(actions == expected, "\(why)")
    }

    @Test("an empty file is written, not fetched, whatever the folder holds; staged already, it is kept")
    func emptyFile() {
        let entry = Self.entry("f", "0", size: 0)
        for local in [ReleasePlan.Fetch.LocalCopy.held, .other, .none] {
            #expect(ReleasePlan.Fetch(entry: entry, held: nil).actions(stagedIntact: false, local: local, inMemoryLimit: 500) == [.empty])
        }
        #expect(ReleasePlan.Fetch(entry: entry, held: nil).actions(stagedIntact: true, local: .none, inMemoryLimit: 500) == [.alreadyStaged])
    }

    static let patch = ReleaseEntry.Patch(from: String(repeating: "a", count: 64), size: 40, sha256: String(repeating: "9", count: 64))
    static let otherPatch = ReleaseEntry.Patch(from: String(repeating: "e", count: 64), size: 40, sha256: String(repeating: "8", count: 64))

    static let actionCases: [(String, Int64?, Bool, ReleasePlan.Fetch.LocalCopy, [ReleaseEntry.Patch]?, (Bool, Bool), [ReleasePlan.Fetch.Action])] = [
        ("staged intact by an interrupted sync: nothing", 400, true, .held, [patch], (true, true), [.alreadyStaged]),
        (
            "the held content, a patch listed: the patch, then gzip through memory", 400, false, .held, [patch], (false, false),
            [.patch(patch), .download(gzip: true)]
        ),
        (
            "the held content, patches from other versions only: the server's patch on request", 400, false, .held, [otherPatch],
            (false, false), [.requestedPatch, .download(gzip: true)]
        ),
        ("the held content, no patch at all (none worth keeping): the whole file", 400, false, .held, nil, (false, false), [.download(gzip: true)]),
        (
            "the held content, then its blocks if the patch fails", 400, false, .held, [patch], (true, true),
            [.patch(patch), .blocks(restoring: nil), .download(gzip: true)]
        ),
        (
            "another copy: the held version's blocks then its patch, then the new version's blocks", nil, false, .other, [patch], (true, true),
            [.blocks(restoring: patch), .blocks(restoring: nil), .stream(gzip: false)]
        ),
        (
            "another copy, no patch listed: the new version's blocks", nil, false, .other, nil, (true, true),
            [.blocks(restoring: nil), .stream(gzip: false)]
        ),
        ("another copy, no block index: the whole file", nil, false, .other, [patch], (false, false), [.stream(gzip: false)]),
        ("no file at the path: the whole file", nil, false, .none, [patch], (true, true), [.stream(gzip: false)]),
        ("a gzip variant above the limit is streamed", 600, false, .none, nil, (false, false), [.stream(gzip: true)]),
        ("a gzip variant no smaller is not used", 1000, false, .none, nil, (false, false), [.stream(gzip: false)]),
    ]

    @Test("paths that would be one file on some file systems refuse the whole release")
    func collisions() {
        #expect(throws: PolicyError.self) {
            try ReleasePlan(
                before: [],
                after: [ReleasePage(entries: [Self.entry("A.txt", "a"), Self.entry("a.txt", "b")])],
                removesDeletedFiles: true
            )
        }
    }
}
