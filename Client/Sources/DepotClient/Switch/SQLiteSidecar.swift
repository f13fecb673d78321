import DepotFiles

/// The files SQLite keeps beside a database while a connection has it open, or after one that
/// did not close: the write-ahead log and its index (`-wal`, `-shm`), or a rollback journal
/// (`-journal`). They belong to the file they are beside: a connection that opens a new file
/// under that name replays the old file's log onto the new file's pages, a mix of two releases
/// that `PRAGMA integrity_check` calls ok. So a switch never replaces or removes a file that has
/// any of them.
enum SQLiteSidecar {
    static let suffixes = ["-wal", "-shm", "-journal"]

    /// Refuses (``SyncError`` `.inUse`) when a file of `paths` has a sidecar in `folder` that
    /// is not itself one of `released` (a file of the new release that happens to be named so).
    /// One look-up per suffix and path: the cost follows the change.
    static func refuseInUse(_ paths: some Sequence<String>, released: Set<String>, in folder: ContainedFolder) throws {
        for path in paths {
            for suffix in suffixes where !released.contains(path + suffix) {
                guard try folder.kind(of: path + suffix) != nil else { continue }
                throw SyncError(
                    .inUse,
                    "\(path)\(suffix) is beside \(path): a SQLite connection has it open, or did not close; close the database and sync again (what was downloaded is kept)"
                )
            }
        }
    }
}
