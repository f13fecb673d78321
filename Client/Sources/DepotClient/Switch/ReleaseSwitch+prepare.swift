import DepotFiles
import Foundation

extension ReleaseSwitch {
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
        let directoryPath = self.folder.path
        try folder.with { folder in
            try SQLiteSidecar.refuseInUse(journal.moves.map(\.path) + journal.removals, released: Set(journal.moves.map(\.path)), in: folder)
            for move in journal.moves {
                _ = try LocalPath.url(for: move.path, in: directoryPath)
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
}
