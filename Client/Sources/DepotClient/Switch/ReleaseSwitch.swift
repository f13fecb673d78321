import DepotFiles
import DepotManifest
import Foundation

/// Switching a sync folder from one release to the next, so that an app never sees files of two
/// releases: every new file is verified in `.depot/staging/` first; then a journal listing the
/// renames and removals is written (the commit point); then they are carried out under the
/// folder's read lock, and the new state is saved. A sync killed after the journal is written is
/// finished by the next sync, or by the next reader, before anyone reads.
///
/// Every step may run again after a crash, so each is idempotent: the removals run only until
/// the journal records them done (durably, before the first rename: a removal replayed after a
/// rename could take the new file, as `a` → `a/b` or, on a case-insensitive volume,
/// `Readme.txt` → `README.txt`); a rename is the last use of its staged file, so one whose staged
/// file is gone is done; and the journal's removal is made durable.
///
/// An app reads a consistent release with ``DepotClient/withCurrentRelease(_:)``, which holds the
/// read lock shared: a switch waits for readers, readers wait for a switch.
struct ReleaseJournal: Codable, Equatable {
    /// The state once the switch is done.
    var state: SyncState
    var moves: [Move]
    /// Paths removed, before the moves.
    var removals: [String]
    /// Set, durably, once every removal is done: from then on they are never run again.
    var removalsDone: Bool?
    /// With release folders (``FolderLayout/releaseFolders``): the tree the `current` link is
    /// to name, whole and durable before the journal is written; the journal has no moves nor
    /// removals then.
    var tree: String?
    /// Folders the release adds whole, each staged at `.depot/staging/folders/{path}` with
    /// every file of it before the journal is written, and moved into place with one rename
    /// (``DepotClient/stageNewFolders(_:staging:)``), after the removals and before the moves.
    var folders: [String]?
    /// The journal's layout: ``currentFormat``; absent in the first one (no ``folders``).
    var format: Int?

    /// The layout this version writes and reads: 2 added ``folders``.
    static let currentFormat = 2

    /// Why this journal cannot be carried out as it is, or `nil`: every move must name a staged
    /// file by its SHA-256, so that a journal another process of the container wrote cannot
    /// reach a file outside the staging folder.
    var problem: String? {
        if let format, format > Self.currentFormat {
            return "it has format \(format), which this version of Depot does not read (it reads \(Self.currentFormat)): update the app"
        }
        if let tree, !ReleaseTrees.isName(tree) { return "it names no release folder (\(tree))" }
        return moves.first { !ContentAddress.isSHA256($0.staged) }.map { "a move of \($0.path) names no staged file (\($0.staged))" }
    }

    struct Move: Codable, Equatable {
        /// The file's name in `.depot/staging/`: its SHA-256, held as bytes.
        var staged: String {
            get { digest.text }
            set { digest = CompactHex(newValue) }
        }
        private var digest: CompactHex
        var path: String
        /// Copy instead of rename: the staged file serves a later move too.
        var copy: Bool
        /// Seconds since 1970: the file's `Last-Modified`.
        var modified: Int64?

        init(staged: CompactHex, path: String, copy: Bool, modified: Int64?) {
            self.digest = staged
            self.path = path
            self.copy = copy
            self.modified = modified
        }

        init(staged: String, path: String, copy: Bool, modified: Int64?) {
            self.init(staged: CompactHex(staged), path: path, copy: copy, modified: modified)
        }

        private enum CodingKeys: String, CodingKey {
            case digest = "staged"
            case path, copy, modified
        }
    }
}

/// The points of a switch a crash can fall between, for tests that crash there
/// (``DepotClient/switchFault``).
enum SwitchStep: Equatable, Sendable {
    /// The journal is durable; nothing is carried out yet.
    case journalWritten
    /// The removals are done, and the journal says so.
    case removalsDone
    /// The folders the release adds are staged whole; the journal is not written yet.
    case foldersStaged
    /// The folders staged whole are in place.
    case foldersMoved
    /// The first `n` moves are done; with release folders, `moved(1)`: the link names the new
    /// tree.
    case moved(Int)
    /// The new state is saved; the journal is still there.
    case stateSaved
    /// A revert's switch is done; its `failed` report is not queued yet (``DepotClient/revert()``).
    case reverted
}

extension DepotClient {
    var journalFile: URL { directory.appendingPathComponent(OwnFile.journal.rawValue) }
    static let readLock = ".depot/read.lock"

    /// Runs `body` while no sync is switching releases: the folder then holds exactly the
    /// release passed (`nil` before the first sync). A switch a killed sync left half done is
    /// finished first.
    public func withCurrentRelease<T>(_ body: (HeldRelease?) throws -> T) throws -> T {
        try finishInterruptedSwitch()
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: false) }
        defer { lock?.unlock() }
        return try body(SyncState.load(from: folder).release)
    }

    /// The release the folder holds, as its state file says.
    public var currentRelease: HeldRelease? { SyncState.load(from: folder).release }

    /// Checks that `journal` can be carried out without failing half-way, creating the folders
    /// its moves need. Refused now, before the commit point: a file SQLite has open
    /// (``SQLiteSidecar``); a path whose folder is a file that stays, or that is a folder with
    /// files that stay; a link on a move's way (which the moves, through the folder's
    /// descriptor, would refuse half-way).
    func prepare(_ journal: ReleaseJournal) throws {
        // A tree is whole before its journal is written, and replaces no file.
        guard journal.tree == nil else { return }
        let removed = Set(journal.removals)
        var folders = Set<String>()
        try folder.with { folder in
            try SQLiteSidecar.refuseInUse(journal.moves.map(\.path) + journal.removals, released: Set(journal.moves.map(\.path)), in: folder)
            for move in journal.moves {
                _ = try localURL(for: move.path)
                if try folder.kind(of: move.path) == S_IFDIR {
                    let staying = try folder.tree(below: move.path).filter { $0.kind != S_IFDIR && !removed.contains($0.path) }
                    if !staying.isEmpty { throw SyncError(.io, "cannot replace the folder \(move.path) with a file: it holds other files") }
                }
                let segments = move.path.split(separator: "/").dropLast()
                // Each folder is checked and made once, however many files go into it.
                guard folders.insert(segments.joined(separator: "/")).inserted else { continue }
                var prefix = ""
                for segment in segments {
                    prefix += prefix.isEmpty ? String(segment) : "/" + segment
                    // What the removals take away first (a file, or a link in its place) is no obstacle.
                    guard let kind = try folder.kind(of: prefix), kind != S_IFDIR, !removed.contains(prefix) else { continue }
                    guard kind == S_IFREG else {
                        throw SyncError(
                            .io,
                            "cannot create the folder of \(move.path): \(directoryPath)/\(prefix) is not a folder Depot made (a link?): remove it"
                        )
                    }
                    throw SyncError(.io, "cannot create the folder of \(move.path): \(prefix) is a file")
                }
                if !segments.isEmpty, !removed.contains(where: { move.path.hasPrefix($0 + "/") }) {
                    try folder.makeFolder(segments.joined(separator: "/"))
                }
            }
        }
    }

    /// Writes `journal` (the commit point) and carries it out. Everything staged and cached is
    /// made durable first, in one go. A switch to a tree records the release it replaces as the
    /// one to revert to (``SyncState/previous``), unless it is not `keepingPrevious` (a revert).
    func switchRelease(_ journal: ReleaseJournal, keepingPrevious: Bool = true) throws {
        let staging = StagingFolder(try folder.open())
        var journal = try stageNewFolders(journal, staging: staging)
        journal.format = ReleaseJournal.currentFormat
        try switchFault?(.foldersStaged)
        try prepare(journal)
        try Durability.synchronize(
            Set(journal.moves.map(\.staged)).map { staging.journaled($0) } + (journal.folders ?? []).flatMap { try staging.filesStaged(in: $0) },
            in: staging.folder
        )
        // Locked before the journal exists: no reader can carry it out meanwhile, so it is
        // carried out from memory, not read back (100,000 moves are megabytes of JSON).
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: true) }
        defer { lock?.unlock() }
        if let tree = journal.tree { journal.state.previous = keepingPrevious ? try previousRelease(replacedBy: tree) : nil }
        try write(journal)
        try carryOut(journal, staging: staging)
    }

    /// Carries out the journal a switch left, if any: idempotent, so a kill at any point of it
    /// is finished by the next call.
    func finishInterruptedSwitch() throws {
        let staging = StagingFolder(try folder.open())
        guard try folder.with({ try $0.contains(OwnFile.journal.rawValue) }) else { return }
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: true) }
        defer { lock?.unlock() }
        guard let bytes = folder.read(.journal) else { return }
        try carryOut(try JSONDecoder().decode(ReleaseJournal.self, from: Data(bytes)), staging: staging)
    }

    /// Carries out `journal`, which is written, under the exclusive read lock. Every removal
    /// and rename goes through the folder's descriptor: a link planted on the way is refused,
    /// never followed.
    private func carryOut(_ journal: ReleaseJournal, staging: StagingFolder) throws {
        if let problem = journal.problem { throw SyncError(.corrupt, "the switch journal is damaged: \(problem)") }
        var journal = journal
        let folder = staging.folder
        try switchFault?(.journalWritten)
        if let tree = journal.tree {
            try ReleaseTrees(folder: folder).point(at: tree)
            try switchFault?(.moved(1))
            try journal.state.save(in: self.folder)
            try switchFault?(.stateSaved)
            try self.folder.remove(.journal)
            return
        }
        // Every path is checked before anything is done.
        for path in journal.removals + (journal.folders ?? []) { _ = try localURL(for: path) }
        for move in journal.moves { _ = try localURL(for: move.path) }
        if journal.removalsDone != true, !journal.removals.isEmpty {
            // A removal a link on the way refuses has nothing of the folder's to remove.
            for path in journal.removals {
                try? folder.remove(path)
                try? removeEmptyFolders(above: path, in: folder)
            }
            try Durability.synchronize(journal.removals, in: folder)
            journal.removalsDone = true
            try write(journal)
        }
        try switchFault?(.removalsDone)
        // A folder whose staged copy is gone was moved by an earlier attempt.
        for path in journal.folders ?? [] { _ = try folderCall { try folder.rename(StagingFolder.foldersPath + "/" + path, to: path) } }
        if journal.folders != nil { try switchFault?(.foldersMoved) }
        for (index, move) in journal.moves.enumerated() {
            // Already moved by an earlier attempt: a rename is the last use of its staged file.
            guard try staging.place(move, at: move.path) else { continue }
            try switchFault?(.moved(index + 1))
        }
        // The renames, durable together before the state says they are done.
        try Durability.synchronize(journal.moves.map(\.path) + (journal.folders ?? []), in: folder)
        try journal.state.save(in: self.folder)
        try switchFault?(.stateSaved)
        try self.folder.remove(.journal)
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
}
