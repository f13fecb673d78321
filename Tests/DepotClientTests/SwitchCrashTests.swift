import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// A switch crashed at every step, then finished by the next reader: the folder holds exactly
/// release 1 or release 2, with no file missing, whatever a power cut brings back.
@Suite("Switch crash points")
struct SwitchCrashTests {
    /// A release change: the files of release 1, those of release 2, and the journal between.
    struct Change: Sendable, CustomStringConvertible {
        var description: String
        var before: [String: String]
        var after: [String: String]
        var journal: ReleaseJournal
        /// The moves the journal keeps once the folders the release adds are staged whole.
        var movesKept: Int

        /// Release 1 holds `a`; release 2 holds `a/b` and removes `a`.
        static let fileBecomesFolder = Change(
            description: "a → a/b",
            before: ["a": "a1", "keep": "k"],
            after: ["a/b": "b2", "keep": "k"],
            journal: ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: [.init(staged: ReleaseSwitchTests.sha("b2"), path: "a/b", copy: false, modified: nil)],
                removals: ["a"]
            ),
            movesKept: 1
        )

        /// `Readme.txt` → `README.txt` on a case-insensitive volume, where both names are one
        /// entry: modelled here on a case-sensitive one by giving both the same name.
        static let caseOnlyRename = Change(
            description: "Readme.txt → README.txt, case-insensitive",
            before: ["Readme.txt": "old text", "keep": "k"],
            after: ["Readme.txt": "new text", "keep": "k"],
            journal: ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: [.init(staged: ReleaseSwitchTests.sha("new-text"), path: "Readme.txt", copy: false, modified: nil)],
                removals: ["Readme.txt"]
            ),
            movesKept: 1
        )

        /// A changed file, a removal, and one content at two new paths (a copy and a rename).
        static let mixed = Change(
            description: "changed, removed, copied",
            before: ["a": "a1", "old": "old"],
            after: ["a": "a2", "b/c": "same", "d": "same"],
            journal: ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: [
                    .init(staged: ReleaseSwitchTests.sha("a2"), path: "a", copy: false, modified: 1_700_000_000),
                    .init(staged: ReleaseSwitchTests.sha("same"), path: "b/c", copy: true, modified: nil),
                    .init(staged: ReleaseSwitchTests.sha("same"), path: "d", copy: false, modified: nil),
                ],
                removals: ["old"]
            ),
            // `b` is a new folder: `b/c` is staged in it, as a copy, since `d` takes the file.
            movesKept: 2
        )

        /// A folder release 1 does not have, moved into place whole, beside a file moved alone.
        static let newFolder = Change(
            description: "new folder",
            before: ["keep": "k"],
            after: ["keep": "k", "c": "C", "new/b": "B", "new/x/a": "A"],
            journal: ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: [
                    .init(staged: ReleaseSwitchTests.sha("C"), path: "c", copy: false, modified: nil),
                    .init(staged: ReleaseSwitchTests.sha("B"), path: "new/b", copy: false, modified: nil),
                    .init(staged: ReleaseSwitchTests.sha("A"), path: "new/x/a", copy: false, modified: 1_700_000_000),
                ],
                removals: []
            ),
            movesKept: 1
        )

        /// Writes release 1 and release 2's staged files into `folder`.
        func prepare(_ folder: URL) throws {
            let client = ReleaseSwitchTests.client(folder)
            try FileManager.default.createDirectory(
                at: client.directory.appendingPathComponent(StagingFolder.path),
                withIntermediateDirectories: true
            )
            for (path, content) in before { _ = try folder.write(Data(content.utf8), to: path) }
            try ReleaseSwitchTests.held(1).save(in: client.folder)
            for move in journal.moves {
                let content = after[move.path]!
                _ = try folder.write(Data(content.utf8), to: ".depot/staging/\(move.staged)")
            }
        }
    }

    /// Where the crash falls.
    enum CrashPoint: Sendable, CustomStringConvertible {
        case at(SwitchStep)
        /// After the whole switch, with the journal's removal undone by a power cut.
        case journalRemovalLost

        var description: String {
            switch self {
            case .at(let step): "\(step)"
            case .journalRemovalLost: "journal removed, removal not durable"
            }
        }
    }

    static let points: [CrashPoint] = [
        .at(.foldersStaged), .at(.journalWritten), .at(.removalsDone), .at(.foldersMoved), .at(.moved(1)), .at(.moved(2)), .at(.moved(3)),
        .at(.stateSaved), .journalRemovalLost,
    ]

    struct Crash: Error {}

    /// The files of `folder` outside `.depot/`, with their contents.
    static func files(_ folder: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        let names = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        for name in names where !name.hasPrefix(".depot") {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
            if !isFolder.boolValue { files[name] = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self) }
        }
        return files
    }

    @Test(
        "a crash at any step of a switch, then a reader: the folder holds release 2 whole (release 1, before the journal)",
        arguments: [Change.fileBecomesFolder, .caseOnlyRename, .mixed, .newFolder],
        points
    )
    func crash(change: Change, at point: CrashPoint) throws {
        if case .at(.moved(let count)) = point, count > change.movesKept { return }
        // Only a switch that stages a folder whole moves one.
        if case .at(.foldersMoved) = point, change.movesKept == change.journal.moves.count { return }
        try withTemporaryDirectorySync { folder in
            try change.prepare(folder)
            // The journal as a power cut could bring it back: its last version, as the switch saw it
            // (none before it is written).
            let recorder = SwitchStepRecorder()
            let crashAt: SwitchStep? =
                switch point {
                case .at(let step): step
                case .journalRemovalLost: nil
                }
            let journalFile = ReleaseSwitchTests.client(folder).journalFile
            var client = ReleaseSwitchTests.client(folder)
            client.switchFault = { step in
                recorder.data = (try? Data(contentsOf: journalFile)) ?? recorder.data
                if step == crashAt { throw Crash() }
            }
            do {
                try client.switchRelease(change.journal)
                #expect(crashAt == nil)
            } catch is Crash {
                #expect(FileManager.default.fileExists(atPath: client.journalFile.path) == (crashAt != .foldersStaged))
            }
            var reader = ReleaseSwitchTests.client(folder)
            reader.switchFault = { _ in recorder.data = (try? Data(contentsOf: journalFile)) ?? recorder.data }
            if case .at(.foldersStaged) = point {
                // Before the commit point: release 1 whole, whatever was staged.
                #expect(try reader.withCurrentRelease { $0?.number } == 1)
                #expect(try Self.files(folder) == change.before)
                return
            }
            #expect(try reader.withCurrentRelease { $0?.number } == 2)
            #expect(try Self.files(folder) == change.after)
            // A power cut after the switch brings back the journal it had removed: carrying it out
            // again changes nothing.
            let journal = try #require(recorder.data)
            try journal.write(to: reader.journalFile)
            #expect(try reader.withCurrentRelease { $0?.number } == 2)
            #expect(try Self.files(folder) == change.after, "replayed at \(point)")
            #expect(!FileManager.default.fileExists(atPath: reader.journalFile.path))
        }
    }
}

/// Keeps what the fault hook saw, for the test to read after the crash.
final class SwitchStepRecorder: @unchecked Sendable {
    var data: Data?
}
