import DepotManifest
import DepotPolicy
import Testing

@testable import DepotClient

/// The switch's renames from a plan (``ReleasePlan/moves``), the client's part of the plan.
@Suite("A plan's renames")
struct ReleasePlanMovesTests {
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

    @Test("content shared by several paths is copied for all but the last, which takes the staged file")
    func sharedContent() throws {
        let after = [ReleasePage(entries: [Self.entry("a", "s"), Self.entry("b", "s"), Self.entry("c", "t")])]
        let moves = try ReleasePlan(before: [], after: after, removesDeletedFiles: true).moves
        #expect(moves.map(\.path) == ["a", "b", "c"])
        #expect(moves.map(\.copy) == [true, false, false])
        #expect(moves.map(\.staged) == [String(repeating: "s", count: 64), String(repeating: "s", count: 64), String(repeating: "t", count: 64)])
        #expect(moves[0].modified == 1_700_000_000)
    }
}
