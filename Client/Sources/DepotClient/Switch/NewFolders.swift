import DepotFiles
import Foundation

extension ReleaseSwitch {
    /// Stages whole each folder the journal's moves fill that the sync folder does not have at
    /// all (a cold sync's every folder, a release's new section): its files are placed under
    /// `.depot/staging/folders/{folder}` now, before the commit point, and the journal moves the
    /// folder into place with one rename (``ReleaseJournal/folders``) instead of a move a file.
    /// The switch then holds the folder's lock for a rename a folder, not one a file, and its
    /// journal lists the folders, not their files. Returns the journal to write.
    ///
    /// A crash before the journal is written leaves the folder as it was; what was staged here
    /// is cleared first by the next switch, and its files are fetched again.
    func stageNewFolders(_ journal: ReleaseJournal, staging: StagingFolder) throws -> ReleaseJournal {
        guard journal.tree == nil, !journal.moves.isEmpty else { return journal }
        try folder.with { try $0.removeContents(of: StagingFolder.foldersPath) }
        var journal = journal
        var absent: [String: Bool] = [:]
        let newFolders = try journal.moves.map { try newFolder(of: $0.path, absent: &absent) }
        guard newFolders.contains(where: { $0 != nil }) else { return journal }
        // A content that a move left in the journal needs too stays staged: placed here by a copy.
        let keptContents = Set(zip(journal.moves, newFolders).filter { $1 == nil }.map(\.0.staged))
        // In the order first met; a set, not a search of the list: a release may add thousands.
        var folders: [String] = []
        var listed = Set<String>()
        for (move, folder) in zip(journal.moves, newFolders) {
            guard let folder else { continue }
            if listed.insert(folder).inserted { folders.append(folder) }
            var placed = move
            placed.copy = move.copy || keptContents.contains(move.staged)
            guard try staging.place(placed, at: StagingFolder.foldersPath + "/" + move.path) else {
                throw SyncError(.io, "the staged file of \(move.path) is missing")
            }
        }
        journal.moves = zip(journal.moves, newFolders).filter { $1 == nil }.map(\.0)
        journal.folders = folders
        return journal
    }

    /// The outermost folder of `path` that the sync folder does not have at all, or `nil` when
    /// it has every one (or a file in place of one, which the switch's removals or checks
    /// handle). `absent` remembers each folder looked at.
    private func newFolder(of path: String, absent: inout [String: Bool]) throws -> String? {
        var prefix = ""
        for segment in path.split(separator: "/").dropLast() {
            prefix += prefix.isEmpty ? String(segment) : "/" + segment
            if let known = absent[prefix] {
                if known { return prefix }
                continue
            }
            let kind = try folder.with { try $0.kind(of: prefix) }
            absent[prefix] = kind == nil
            if kind == nil { return prefix }
            guard kind == S_IFDIR else { return nil }
        }
        return nil
    }
}
