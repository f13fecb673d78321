import DepotFixtures
import DepotHTTP
import DepotManifest
import DepotPolicy
import Testing

/// What a sync does between two releases, decided from their documents alone.
@Suite("Release plans")
struct ReleasePlanTests {
    static func entry(_ path: String, _ sha: Character, size: Int64 = 1, patches: [ReleaseEntry.Patch]? = nil) -> ReleaseEntry {
        Fixture.entry(path, size: size, sha256: Fixture.digest(repeating: sha), patches: patches)
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
    /// through memory, by a client that decodes gzip alone.
    @Test("each file's ways to fetch follow from what the folder holds", arguments: Self.actionCases.indices)
    func actions(index: Int) {
        let (why, gzipSize, stagedIntact, local, patches, (heldIndexed, newIndexed), expected) = Self.actionCases[index]
        let index = ReleaseEntry.Variant(size: 10, sha256: String(repeating: "d", count: 64))
        var entry = Self.entry("f", "b", size: 1000, patches: patches)
        entry.gzip = gzipSize.map { ReleaseEntry.Variant(size: $0, sha256: String(repeating: "c", count: 64)) }
        entry.blocks = newIndexed ? index : nil
        var held = Self.entry("f", "a", size: 700)
        held.blocks = heldIndexed ? index : nil
        let actions = ReleasePlan.Fetch(entry: entry, held: held).actions(
            stagedIntact: stagedIntact,
            local: local,
            inMemoryLimit: 1000,
            decoding: [.gzip]
        )
        #expect(actions == expected, "\(why)")
    }

    /// (why, the codings the client decodes, local copy) → the ways tried, for a 1000-byte
    /// file with a 600-byte gzip, a 450-byte zstd and a 430-byte brotli variant and a patch:
    /// the whole download is the smallest variant decoded, and goes through memory when that
    /// file is at most the 1000-byte limit (``decodedSizeDecides()``).
    @Test("the whole file comes in the smallest variant the client decodes", arguments: Self.codingCases.indices)
    func codings(index: Int) {
        let (why, decodable, local, expected) = Self.codingCases[index]
        let actions = ReleasePlan.Fetch(entry: Self.encodedEntry, held: Self.entry("f", "a", size: 700))
            .actions(stagedIntact: false, local: local, inMemoryLimit: 1000, decoding: decodable)
        #expect(actions == expected, "\(why)")
    }

    static let encodedEntry = {
        var entry = Self.entry("f", "b", size: 1000, patches: [patch])
        entry.gzip = ReleaseEntry.Variant(size: 600, sha256: String(repeating: "c", count: 64))
        entry.zstd = ReleaseEntry.Variant(size: 450, sha256: String(repeating: "e", count: 64))
        entry.brotli = ReleaseEntry.Variant(size: 430, sha256: String(repeating: "f", count: 64))
        return entry
    }()

    static let codingCases: [(String, Set<ContentCoding>, ReleasePlan.Fetch.LocalCopy, [ReleasePlan.Fetch.Action])] = [
        ("gzip alone: gzip", [.gzip], .none, [.download(whole(.gzip, 600, "c"))]),
        ("nothing decoded: the file itself", [], .none, [.download(whole(.identity, 1000, "b"))]),
        ("gzip and zstd: zstd through memory", [.gzip, .zstd], .none, [.download(whole(.zstd, 450, "e"))]),
        ("Apple's set, gzip and brotli: brotli", [.gzip, .br], .none, [.download(whole(.br, 430, "f"))]),
        ("Linux's set, all three: brotli, the smallest", [.gzip, .br, .zstd], .none, [.download(whole(.br, 430, "f"))]),
        ("the held content: the patch first, then brotli", [.gzip, .br, .zstd], .held, [.patch(patch), .download(whole(.br, 430, "f"))]),
    ]

    /// A whole download of the 1000-byte content `b…b` in `coding`, of `size` bytes named `sha`.
    static func whole(_ coding: ContentCoding, _ size: Int64, _ sha: Character) -> ReleaseEntry.Download {
        ReleaseEntry.Download(coding: coding, size: size, sha256: String(repeating: sha, count: 64), content: String(repeating: "b", count: 64))
    }

    @Test(
        "issue 57, defect 21: memory follows the decoded size: a 192 MiB file of zeros with a 269-byte brotli variant streams to disk; a 1000-byte file streams under a 500-byte limit"
    )
    func decodedSizeDecides() {
        var zeros = Self.entry("zeros.bin", "b", size: 192 << 20)
        zeros.brotli = ReleaseEntry.Variant(size: 269, sha256: String(repeating: "f", count: 64))
        let whole = ReleaseEntry.Download(
            coding: .br,
            size: 269,
            sha256: String(repeating: "f", count: 64),
            content: String(repeating: "b", count: 64)
        )
        #expect(
            ReleasePlan.Fetch(entry: zeros, held: nil).actions(stagedIntact: false, local: .none, inMemoryLimit: 256 * 1024, decoding: [.gzip, .br])
                == [.stream(whole)]
        )
        #expect(
            ReleasePlan.Fetch(entry: Self.encodedEntry, held: nil).actions(stagedIntact: false, local: .none, inMemoryLimit: 500, decoding: [.br])
                == [.stream(Self.whole(.br, 430, "f"))]
        )
    }

    @Test("an empty file is written, not fetched, whatever the folder holds; staged already, it is kept")
    func emptyFile() {
        let entry = Self.entry("f", "0", size: 0)
        for local in [ReleasePlan.Fetch.LocalCopy.held, .other, .none] {
            #expect(
                ReleasePlan.Fetch(entry: entry, held: nil).actions(stagedIntact: false, local: local, inMemoryLimit: 500, decoding: [.gzip]) == [
                    .empty
                ]
            )
        }
        #expect(
            ReleasePlan.Fetch(entry: entry, held: nil).actions(stagedIntact: true, local: .none, inMemoryLimit: 500, decoding: [.gzip]) == [
                .alreadyStaged
            ]
        )
    }

    static let patch = ReleaseEntry.Patch(from: String(repeating: "a", count: 64), size: 40, sha256: String(repeating: "9", count: 64))
    static let otherPatch = ReleaseEntry.Patch(from: String(repeating: "e", count: 64), size: 40, sha256: String(repeating: "8", count: 64))

    static let actionCases: [(String, Int64?, Bool, ReleasePlan.Fetch.LocalCopy, [ReleaseEntry.Patch]?, (Bool, Bool), [ReleasePlan.Fetch.Action])] = [
        ("staged intact by an interrupted sync: nothing", 400, true, .held, [patch], (true, true), [.alreadyStaged]),
        (
            "the held content, a patch listed: the patch, then gzip through memory", 400, false, .held, [patch], (false, false),
            [.patch(patch), .download(whole(.gzip, 400, "c"))]
        ),
        (
            "the held content, patches from other versions only: the server's patch on request", 400, false, .held, [otherPatch],
            (false, false), [.requestedPatch, .download(whole(.gzip, 400, "c"))]
        ),
        (
            "the held content, no patch at all (none worth keeping): the whole file", 400, false, .held, nil, (false, false),
            [.download(whole(.gzip, 400, "c"))]
        ),
        (
            "the held content, then its blocks if the patch fails", 400, false, .held, [patch], (true, true),
            [.patch(patch), .blocks(restoring: nil), .download(whole(.gzip, 400, "c"))]
        ),
        (
            "another copy: the held version's blocks then its patch, then the new version's blocks", nil, false, .other, [patch], (true, true),
            [.blocks(restoring: patch), .blocks(restoring: nil), .download(whole(.identity, 1000, "b"))]
        ),
        (
            "another copy, no patch listed: the new version's blocks", nil, false, .other, nil, (true, true),
            [.blocks(restoring: nil), .download(whole(.identity, 1000, "b"))]
        ),
        ("another copy, no block index: the whole file", nil, false, .other, [patch], (false, false), [.download(whole(.identity, 1000, "b"))]),
        ("no file at the path: the whole file", nil, false, .none, [patch], (true, true), [.download(whole(.identity, 1000, "b"))]),
        ("a gzip variant under the limit, the file too: through memory", 600, false, .none, nil, (false, false), [.download(whole(.gzip, 600, "c"))]),
        ("a gzip variant no smaller is not used", 1000, false, .none, nil, (false, false), [.download(whole(.identity, 1000, "b"))]),
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

    @Test("planned a few pages at a time against the entries held, the fetches and the removals are those of the whole plan")
    func pagedPlan() throws {
        let before = [
            ReleasePage(entries: [Self.entry("a", "1"), Self.entry("b", "2")]),
            ReleasePage(entries: [Self.entry("c", "3"), Self.entry("d", "4")]),
        ]
        // "c" moves to the first page, "b" to the second; "d" leaves; "e" is new.
        let after = [
            ReleasePage(entries: [Self.entry("a", "1"), Self.entry("c", "5")]),
            ReleasePage(entries: [Self.entry("b", "2"), Self.entry("e", "6")]),
        ]
        let whole = try ReleasePlan(before: before, after: after, removesDeletedFiles: true)
        var held = ReleasePlan.held(in: before)
        let pages = try after.map { page in try ReleasePlan(held: &held, after: [page]) }
        #expect(pages.flatMap(\.fetches) == whole.fetches)
        #expect(pages.flatMap(\.fetches).map(\.entry.path) == ["c", "e"])
        #expect(pages.flatMap(\.fetches).map(\.held?.path) == ["c", nil])
        #expect(pages.allSatisfy { $0.removals.isEmpty })
        #expect(ReleasePlan.removals(left: held) == whole.removals)
        #expect(whole.removals.map(\.path) == ["d"])
    }
}
