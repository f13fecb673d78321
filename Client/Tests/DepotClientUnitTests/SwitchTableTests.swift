import DepotConcurrency
import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// The switch as a table: for both layouts, a crash after each step of the state machine
/// (``SwitchProgress``), as the executor (``ReleaseSwitch``) reaches it, then the next open's
/// recovery, itself crashed after each step it reaches, then recovered again. After every
/// recovery the folder holds exactly release 1 or exactly release 2, never a mix, and the state
/// file names the release it holds. No server: real folders in a temporary directory.
@Suite("Switch state machine, every crash point")
struct SwitchTableTests {
    /// What a crash point falls after.
    struct Row: Sendable, CustomTestStringConvertible {
        var layout: FolderLayout
        var step: SwitchStep
        var testDescription: String { "\(layout.rawValue), crash after \(step)" }
    }

    /// Release 1 and release 2, by path: in place, `a` changes, `old` and `gone/x` go, `keep`
    /// stays, `b/c` comes in a new folder (staged whole) and `d` and `e` are new, `d` sharing
    /// its content with `b/c` (a copy).
    static let before = ["a": "a1", "old": "old", "gone/x": "x", "keep": "keep"]
    static let after = ["a": "a2", "keep": "keep", "b/c": "same", "d": "same", "e": "e"]

    static let inPlaceSteps: [SwitchStep] = [
        .foldersStaged, .journalWritten, .removed(1), .removed(2), .removalsDone, .foldersMoved, .moved(1), .moved(2), .moved(3),
        .stateSaved, .journalRemoved,
    ]
    static let treeSteps: [SwitchStep] = [.foldersStaged, .journalWritten, .linked, .stateSaved, .journalRemoved]

    static let rows = inPlaceSteps.map { Row(layout: .inPlace, step: $0) } + treeSteps.map { Row(layout: .releaseFolders, step: $0) }

    struct Crash: Error {}

    @Test("the executor reaches exactly the machine's steps, in order, in both layouts", arguments: FolderLayout.allCases)
    func stepsReached(layout: FolderLayout) throws {
        try withFolder { folder in
            let journal = try Self.prepare(folder, layout: layout)
            let reached = Locked<[SwitchStep]>([])
            try ReleaseSwitch(folder: SyncFolder(path: folder.path), fault: { step in reached.withLock { $0.append(step) } }).switchTo(journal)
            #expect(reached.withLock { $0 } == (layout == .inPlace ? Self.inPlaceSteps : Self.treeSteps))
            #expect(try Self.held(folder) == Self.after)
        }
    }

    @Test("a crash after any step, then recovery (itself crashed after each of its steps): release 1 or 2 whole, as the state says", arguments: rows)
    func crash(_ row: Row) throws {
        // The recovery's own crash points: none, then each step it reaches.
        var recoveryCrashes: [SwitchStep?] = [nil]
        try withFolder { folder in
            let journal = try Self.prepare(folder, layout: row.layout)
            try Self.crashSwitch(folder, journal: journal, at: row.step)
            let reached = Locked<[SwitchStep]>([])
            try ReleaseSwitch(folder: SyncFolder(path: folder.path), fault: { step in reached.withLock { $0.append(step) } }).finishInterrupted()
            recoveryCrashes += reached.withLock { $0 }.map { $0 }
        }
        for recoveryCrash in recoveryCrashes {
            try withFolder { folder in
                let journal = try Self.prepare(folder, layout: row.layout)
                try Self.crashSwitch(folder, journal: journal, at: row.step)
                if let recoveryCrash {
                    #expect(throws: Crash.self) { try Self.recover(folder, crashingAt: recoveryCrash) }
                }
                try Self.recover(folder, crashingAt: nil)
                let expected = row.step == .foldersStaged ? Self.before : Self.after
                #expect(try Self.held(folder) == expected, "\(row.testDescription), recovery crashed after \(String(describing: recoveryCrash))")
                #expect(SyncState.load(from: SyncFolder(path: folder.path)).release?.number == (row.step == .foldersStaged ? 1 : 2))
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(OwnFile.journal.rawValue).path))
            }
        }
    }

    @Test("a table of journals: the machine's steps from the start and where it resumes")
    func transitions() {
        let empty = SwitchProgress.Shape()
        #expect(SwitchProgress.steps(of: empty) == [.journalWritten, .removalsDone, .stateSaved, .journalRemoved])
        let moves = SwitchProgress.Shape(removals: 1, moves: 2)
        #expect(SwitchProgress.steps(of: moves) == [.journalWritten, .removed(1), .removalsDone, .moved(1), .moved(2), .stateSaved, .journalRemoved])
        let tree = SwitchProgress.Shape(linksTree: true)
        #expect(SwitchProgress.steps(of: tree) == [.journalWritten, .linked, .stateSaved, .journalRemoved])
        // Removals recorded done are never run again; anything else resumes after the commit point.
        #expect(SwitchProgress.resuming(SwitchProgress.Shape(removals: 2, removalsDone: true, moves: 1)).step == .removalsDone)
        #expect(SwitchProgress.resuming(SwitchProgress.Shape(removals: 2, moves: 1)).step == .journalWritten)
        #expect(SwitchProgress.resuming(tree).step == .journalWritten)
        var done = SwitchProgress.resuming(moves)
        while done.next != nil { done.advance() }
        #expect(done.isDone && done.step == .journalRemoved)
    }

    // MARK: - The folder

    static func sha(_ text: String) -> String { Fixture.sha256(Data(text.utf8)) }

    static func held(number: Int64) -> HeldRelease {
        HeldRelease(
            id: String(repeating: "\(number)", count: 64),
            number: number,
            channel: "stable",
            serial: number,
            files: 4,
            signature: .notChecked
        )
    }

    /// Writes the files of `release` below `root`.
    static func write(_ release: [String: String], in root: URL) throws {
        for (path, text) in release { try root.write(Data(text.utf8), to: path) }
    }

    /// A folder holding release 1 with release 2 staged, in `layout`; returns release 2's journal.
    static func prepare(_ folder: URL, layout: FolderLayout) throws -> ReleaseJournal {
        let sync = SyncFolder(path: folder.path)
        _ = try sync.open()
        var state = SyncState(channelETag: "\"e1\"", release: held(number: 1))
        try state.save(in: sync)
        state = SyncState(channelETag: "\"e2\"", release: held(number: 2))
        guard layout == .inPlace else {
            let (one, two) = ("1-" + String(repeating: "1", count: 16), "2-" + String(repeating: "2", count: 16))
            try write(before, in: folder.appendingPathComponent(ReleaseTrees.treePath(one)))
            try write(after, in: folder.appendingPathComponent(ReleaseTrees.treePath(two)))
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent(ReleaseTrees.link).path,
                withDestinationPath: ReleaseTrees.treePath(one)
            )
            return ReleaseJournal(state: state, moves: [], removals: [], tree: two)
        }
        try write(before, in: folder)
        for text in Set(after.values) where text != "keep" { try folder.write(Data(text.utf8), to: ".depot/staging/" + sha(text)) }
        return ReleaseJournal(
            state: state,
            moves: [
                .init(staged: sha("a2"), path: "a", copy: false, modified: nil),
                .init(staged: sha("same"), path: "b/c", copy: true, modified: nil),
                .init(staged: sha("same"), path: "d", copy: false, modified: nil),
                .init(staged: sha("e"), path: "e", copy: false, modified: nil),
            ],
            removals: ["old", "gone/x"]
        )
    }

    /// Switches `folder` to `journal`, crashing after `step`.
    static func crashSwitch(_ folder: URL, journal: ReleaseJournal, at step: SwitchStep) throws {
        let crashing = ReleaseSwitch(folder: SyncFolder(path: folder.path), fault: { if $0 == step { throw Crash() } })
        #expect(throws: Crash.self) { try crashing.switchTo(journal) }
    }

    /// The next open's recovery (``ReleaseSwitch/finishInterrupted()``), crashing after `step`.
    static func recover(_ folder: URL, crashingAt step: SwitchStep?) throws {
        try ReleaseSwitch(folder: SyncFolder(path: folder.path), fault: { if $0 == step { throw Crash() } }).finishInterrupted()
    }

    /// The release's files the folder holds, by path: in place, every file outside `.depot`;
    /// with release folders, the tree `current` names.
    static func held(_ folder: URL) throws -> [String: String] {
        let link = folder.appendingPathComponent(ReleaseTrees.link)
        let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != nil
        let root = isLink ? link.resolvingSymlinksInPath() : folder
        var files: [String: String] = [:]
        for name in FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [] where !name.hasPrefix(".depot") {
            let url = root.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue, name != ReleaseTrees.link else {
                continue
            }
            files[name] = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return files
    }

    func withFolder(_ body: (URL) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("depot-switch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        try body(url)
    }
}
