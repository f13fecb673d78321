import DepotAPI
import Testing

@testable import DepotPublisher

/// Which commit a publish sends, and the index it keeps after.
@Suite("Commit plans")
struct CommitPlanTests {
    static func sha(_ character: Character) -> String { String(repeating: character, count: 64) }
    static let releaseID = sha("r")

    static func index(complete: Bool, _ entries: [String: Character]) -> PublishIndex {
        PublishIndex(release: .init(id: releaseID, isComplete: complete), entries: entries.mapValues { .init(sha256: sha($0)) })
    }

    @Test("incremental when the index names a release (and, for --replace, knows all of it); else the whole list")
    func plans() {
        let files: [(path: String, sha256: String)] = [("a", Self.sha("1")), ("b", Self.sha("2")), ("c", Self.sha("3"))]
        let cases: [(index: PublishIndex?, replace: Bool, incremental: Bool, sent: [String], deleted: [String])] = [
            (nil, false, false, ["a", "b", "c"], ["x"]),
            (PublishIndex(), false, false, ["a", "b", "c"], ["x"]),
            (Self.index(complete: false, ["a": "1", "b": "9"]), false, true, ["b", "c"], ["x"]),
            (Self.index(complete: false, ["a": "1", "b": "2", "c": "3"]), false, true, [], ["x"]),
            // --replace needs the whole release to know what to take out.
            (Self.index(complete: false, ["a": "1", "b": "2", "c": "3"]), true, false, ["a", "b", "c"], ["x"]),
            (Self.index(complete: true, ["a": "1", "b": "2", "c": "3", "old": "4", "x": "5"]), true, true, [], ["x", "old"]),
            (Self.index(complete: true, ["a": "1", "b": "2", "c": "3", "old": "4"]), false, true, [], ["x"]),
        ]
        for (index, replace, incremental, sent, deleted) in cases {
            let plan = CommitPlan(channel: "stable", files: files, deletions: ["x"], replace: replace, index: index)
            #expect(plan.isIncremental == incremental)
            #expect(plan.request.files?.map(\.path) == sent)
            #expect(plan.request.delete == deleted)
            #expect(plan.request.base == (incremental ? Self.releaseID : nil))
            #expect(plan.request.replace == (incremental ? false : replace))
        }
    }

    @Test("the index after a commit: what the release holds, complete after --replace or on a complete base")
    func indexAfter() {
        let status = FileStatus(size: 1, modified: 1, changed: 1, inode: 1, device: 1)
        let local = [("a", "1"), ("c", "3")].map {
            TreeDigests.Digest(file: LocalFile(file: "/t/\($0.0)", logicalPath: $0.0, status: status), sha256: Self.sha(Character($0.1)), source: nil)
        }
        let newID = Self.sha("n")
        let cases: [(previous: PublishIndex?, replace: Bool, complete: Bool, paths: [String])] = [
            (nil, false, false, ["a", "c"]),
            (nil, true, true, ["a", "c"]),
            (Self.index(complete: false, ["a": "0", "b": "2"]), false, false, ["a", "b", "c"]),
            (Self.index(complete: true, ["a": "0", "b": "2"]), false, true, ["a", "b", "c"]),
            (Self.index(complete: true, ["a": "0", "b": "2"]), true, true, ["a", "c"]),
        ]
        for (previous, replace, complete, paths) in cases {
            let plan = CommitPlan(
                channel: "stable",
                files: local.map { ($0.file.logicalPath, $0.sha256) },
                deletions: [],
                replace: replace,
                index: previous
            )
            let after = plan.indexAfterCommit(files: local, previous: previous, releaseID: newID)
            #expect(after.release == .init(id: newID, isComplete: complete))
            #expect(after.entries.keys.sorted() == paths)
            #expect(after.entries["a"]?.sha256 == Self.sha("1"))
        }
    }
}
