import DepotFiles
import Foundation

/// The executor of a switch: it carries out, through the folder's descriptor
/// (``DepotFiles/ContainedFolder``), the steps the state machine ``SwitchProgress`` names, in
/// its order, and tells each step reached to ``fault`` (tests crash a switch there). Writing a
/// journal (``switchTo(_:keepingPrevious:)``) and finishing one found at the next open
/// (``finishInterrupted()``) are the same walk of the machine, from its start or from where the
/// journal says it stood (``SwitchProgress/resuming(_:)``).
///
/// Every step may run again after a crash, so each is idempotent: the removals run only until
/// the journal records them done (durably, before the first rename: a removal replayed after a
/// rename could take the new file, as `a` → `a/b` or, on a case-insensitive volume,
/// `Readme.txt` → `README.txt`); a rename is the last use of its staged file, so one whose staged
/// file is gone is done; and the journal's removal is made durable.
struct ReleaseSwitch: Sendable {
    static let readLock = ".depot/read.lock"

    let folder: SyncFolder
    /// Called at each step reached; `nil` in use.
    let fault: (@Sendable (SwitchStep) throws -> Void)?

    /// Writes `journal` (the commit point) and carries it out. Everything staged is made durable
    /// first, in one go. A switch to a tree records the release it replaces as the one to revert
    /// to (``SyncState/previous``), unless it is not `keepingPrevious` (a revert).
    func switchTo(_ journal: ReleaseJournal, keepingPrevious: Bool = true) throws {
        let staging = StagingFolder(try folder.open())
        var journal = try stageNewFolders(journal, staging: staging)
        journal.format = ReleaseJournal.currentFormat
        try fault?(.foldersStaged)
        try prepare(journal)
        // Listed only where each file is fsynced: on Linux one syncfs(2) needs no list.
        let staged = { Set(journal.moves.map(\.staged)).map { staging.journaled($0) } + (try (journal.folders ?? []).flatMap(staging.filesStaged)) }
        try folderCall { try Durability.synchronize(try staged(), in: staging.folder) }
        // Locked before the journal exists: no reader can carry it out meanwhile, so it is
        // carried out from memory, not read back (100,000 moves are megabytes of JSON).
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: true) }
        defer { lock?.unlock() }
        if let tree = journal.tree { journal.state.previous = keepingPrevious ? try previousRelease(replacedBy: tree) : nil }
        try carryOut(journal, from: SwitchProgress(SwitchProgress.Shape(journal)), staging: staging)
    }

    /// Carries out the journal a switch left, if any, from where it stood
    /// (``SwitchProgress/resuming(_:)``): a kill at any point of it is finished by the next call.
    func finishInterrupted() throws {
        let staging = StagingFolder(try folder.open())
        guard try folder.with({ try $0.contains(OwnFile.journal.rawValue) }) else { return }
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: true) }
        defer { lock?.unlock() }
        guard let bytes = folder.read(.journal) else { return }
        let journal = try JSONDecoder().decode(ReleaseJournal.self, from: Data(bytes))
        try carryOut(journal, from: .resuming(SwitchProgress.Shape(journal)), staging: staging)
    }

    /// Walks the machine from `progress` to its end, under the exclusive read lock, carrying out
    /// each step's action. Every removal and rename goes through the folder's descriptor: a
    /// link planted on the way is refused, never followed.
    private func carryOut(_ journal: ReleaseJournal, from progress: SwitchProgress, staging: StagingFolder) throws {
        if let problem = journal.problem { throw SyncError(.corrupt, "the switch journal is damaged: \(problem)") }
        // Every path is checked before anything is done.
        for path in journal.removals + (journal.folders ?? []) { _ = try LocalPath.url(for: path, in: folder.path) }
        for move in journal.moves { _ = try LocalPath.url(for: move.path, in: folder.path) }
        var journal = journal
        var progress = progress
        while let (action, step) = progress.next {
            try perform(action, of: &journal, staging: staging)
            progress.advance()
            try fault?(step)
        }
    }

    /// Carries out `action` of `journal`; records in it what it records (its removals done).
    private func perform(_ action: SwitchProgress.Action, of journal: inout ReleaseJournal, staging: StagingFolder) throws {
        let contents = staging.folder
        switch action {
        case .writeJournal:
            try write(journal)
        case .remove(let index):
            // A removal a link on the way refuses has nothing of the folder's to remove.
            let path = journal.removals[index]
            try? contents.remove(path)
            try? removeEmptyFolders(above: path, in: contents)
        case .finishRemovals:
            guard journal.removalsDone != true, !journal.removals.isEmpty else { return }
            try folderCall { try Durability.synchronize(journal.removals, in: contents) }
            journal.removalsDone = true
            try write(journal)
        case .moveFolders:
            // A folder whose staged copy is gone was moved by an earlier attempt.
            for path in journal.folders ?? [] { _ = try folderCall { try contents.rename(StagingFolder.foldersPath + "/" + path, to: path) } }
        case .move(let index):
            // Already moved by an earlier attempt: a rename is the last use of its staged file.
            _ = try staging.place(journal.moves[index], at: journal.moves[index].path)
        case .link:
            if let tree = journal.tree { try ReleaseTrees(folder: contents).point(at: tree) }
        case .saveState:
            // The renames, durable together before the state says they are done.
            if journal.tree == nil {
                try folderCall { try Durability.synchronize(journal.moves.map(\.path) + (journal.folders ?? []), in: contents) }
            }
            try journal.state.save(in: folder)
        case .removeJournal:
            try folder.remove(.journal)
        }
    }

    /// Writes `journal` atomically and durably, a part at a time (``JSONStream``).
    private func write(_ journal: ReleaseJournal) throws {
        try folder.replace(.journal) { try journal.encode(into: &$0) }
    }

    /// Removes the folders a removal of `path` left empty, up to the sync folder.
    private func removeEmptyFolders(above path: String, in folder: ContainedFolder) throws {
        var parent = path
        while let slash = parent.lastIndex(of: "/") {
            parent = String(parent[..<slash])
            guard try folder.removeEmptyFolder(parent) else { return }
        }
    }

    /// The release held and its tree, as a switch to `next` finds them under the exclusive read
    /// lock: what ``DepotClient/revert()`` goes back to; `nil` before the first release, or in
    /// place.
    func previousRelease(replacedBy next: String) throws -> PreviousRelease? {
        guard let held = SyncState.load(from: folder).release, let tree = try ReleaseTrees(folder: try folder.open()).current(), tree != next
        else { return nil }
        return PreviousRelease(release: held, tree: tree)
    }
}
