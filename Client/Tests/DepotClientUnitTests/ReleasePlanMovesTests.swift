import DepotFixtures
import DepotManifest
import DepotPolicy
import Testing

@testable import DepotClient

/// The switch's renames from a plan (``ReleasePlan/moves``), the client's part of the plan.
@Suite("A plan's renames")
struct ReleasePlanMovesTests {
    static func entry(_ path: String, _ sha: Character, size: Int64 = 1, patches: [ReleaseEntry.Patch]? = nil) -> ReleaseEntry {
        Fixture.entry(path, size: size, sha256: Fixture.digest(repeating: sha), patches: patches)
    }

    @Test("content shared by several paths is copied for all but the last, which takes the staged file")
    func sharedContent() throws {
        let after = [ReleasePage(entries: [Self.entry("a", "s"), Self.entry("b", "s"), Self.entry("c", "t")])]
        let moves = try ReleasePlan(before: [], after: after, removesDeletedFiles: true).moves
        #expect(moves.map(\.path) == ["a", "b", "c"])
        #expect(moves.map(\.copy) == [true, false, false])
        #expect(moves.map(\.staged) == [String(repeating: "s", count: 64), String(repeating: "s", count: 64), String(repeating: "t", count: 64)])
        #expect(moves[0].modified == 1_700_000_000)
    }

    @Test("planned a batch of pages at a time, a content's paths in several batches copy but the last; one content, 100,000 paths, at once")
    func copiesAcrossBatches() throws {
        let first = try ReleasePlan(
            before: [],
            after: [ReleasePage(entries: [Self.entry("a", "s"), Self.entry("b", "t")])],
            removesDeletedFiles: true
        )
        let second = try ReleasePlan(
            before: [],
            after: [ReleasePage(entries: [Self.entry("c", "s"), Self.entry("d", "u")])],
            removesDeletedFiles: true
        )
        var moves = first.moves + second.moves
        #expect(moves.map(\.copy) == [false, false, false, false])
        ReleaseJournal.Move.markCopies(&moves)
        #expect(moves.map(\.copy) == [true, false, false, false])
        // Sorted by hash, not compared in pairs: one content at 100,000 paths takes a moment.
        var many = (0..<100_000).map { ReleaseJournal.Move(staged: String(repeating: "e", count: 64), path: "\($0)", copy: false, modified: nil) }
        ReleaseJournal.Move.markCopies(&many)
        #expect(many.filter(\.copy).count == 99_999)
        #expect(many.last?.copy == false)
    }

    @Test(
        "the pages of a paged sync go in batches of at most so many entries, in order; a larger page alone",
        arguments: [
            ([1, 2, 3], [["p0", "p1", "p2"]]),
            ([4_000, 96, 1], [["p0", "p1"], ["p2"]]),
            ([5_000, 10, 4_096, 4_097], [["p0"], ["p1"], ["p2"], ["p3"]]),
            ([], []),
        ] as [([Int], [[String]])]
    )
    func batches(sizes: [Int], batches: [[String]]) {
        let hashes = sizes.indices.map { "p\($0)" }
        let entries = Dictionary(uniqueKeysWithValues: zip(hashes, sizes))
        #expect(SyncAttempt.batches(hashes, entries: entries) == batches)
    }
}
