import DepotManifest
import GRDB

extension ReleaseTables {
    /// Records the versions clients of rollout `id` fetch (those by which `target` differs from
    /// `base`), kept as a channel's are; a version retention removed makes the rollout
    /// impossible.
    static func recordRolloutFiles(_ id: Int64, from base: ReleaseSummary, to target: ReleaseSummary, in db: Database) throws {
        let diff = try ReleaseWriter.diff(from: base, to: target, in: db)
        for entry in diff.added + diff.changed.map(\.after) {
            try db.execute(
                sql: "UPDATE file_version SET retired_at = NULL WHERE path = ? AND version = ? AND sha256 = ?",
                arguments: [entry.path, entry.version, entry.sha256]
            )
            guard db.changesCount == 1 else {
                throw CatalogError(
                    "\(entry.path) version \(entry.version) is no longer kept, so release \(target.number) cannot be rolled out",
                    code: .gone
                )
            }
            try db.execute(sql: "INSERT INTO rollout_file (rollout, path, version) VALUES (?, ?, ?)", arguments: [id, entry.path, entry.version])
        }
        try db.execute(sql: "UPDATE release SET retired_at = NULL WHERE id = ?", arguments: [target.id])
    }

    /// Forgets the versions rollout `id` held: it ended.
    static func forgetRolloutFiles(of id: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM rollout_file WHERE rollout = ?", arguments: [id])
    }

    /// Sets the serial of `channel` (after a rollout event, which moves no pointer).
    static func setSerial(_ serial: Int64, of channel: String, now: Int64, in db: Database) throws {
        try db.execute(sql: "UPDATE channel SET serial = ?, updated_at = ? WHERE name = ?", arguments: [serial, now, channel])
    }
}
