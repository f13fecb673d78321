import DepotManifest
import Foundation
import GRDB

extension ReleaseTables {
    /// The ids of the releases retention keeps, channel by channel: its release, its fallbacks
    /// (``ReleaseWriter/fallbacks(of:for:in:)``, what its document names), and the releases of
    /// its rollback history up to `keeping` releases in all (its own first); and the release and
    /// base of each live rollout (`rollouts`, ``RolloutStore/liveReleases(in:)``).
    static func retainedReleases(keeping: Int, rollouts: Set<String>, in db: Database) throws -> Set<String> {
        var kept = rollouts
        for name in try String.fetchAll(db, sql: "SELECT name FROM channel") {
            guard let channel = try ReleaseWriter.channel(name, in: db) else { continue }
            kept.formUnion(try ReleaseWriter.fallbacks(of: name, for: channel.release, in: db).map(\.id))
            var history: Set<String> = [channel.release.id]
            let moves = try rollbackHistory(of: name, in: db)
            while history.count < keeping, let move = try moves.next() { history.insert(move["release"]) }
            kept.formUnion(history)
        }
        return kept
    }

    /// Brings back the retired versions a kept release lists: a commit retires the older
    /// versions of a path whatever channel holds them in an earlier release.
    private static func keepVersionsOfKeptReleases(in db: Database) throws {
        var retired = Set<String>()
        let rows = try Row.fetchCursor(db, sql: "SELECT path, version FROM file_version WHERE retired_at IS NOT NULL")
        while let row = try rows.next() { retired.insert("\(row["version"] as Int64) \(row["path"] as String)") }
        guard !retired.isEmpty else { return }
        let decoder = JSONDecoder()
        var pages = Set<String>()
        let documents = try Data.fetchCursor(db, sql: "SELECT document FROM release WHERE retired_at IS NULL")
        while let document = try documents.next() { pages.formUnion(try decoder.decode(ReleaseDocument.self, from: document).pages) }
        let keep = try db.makeStatement(sql: "UPDATE file_version SET retired_at = NULL WHERE path = ? AND version = ?")
        for page in pages {
            for entry in try ReleaseWriter.page(page, in: db).entries where retired.contains("\(entry.version) \(entry.path)") {
                try keep.execute(arguments: [entry.path, entry.version])
            }
        }
    }

    /// Removes the pages no stored release lists.
    static func removeUnlistedPages(in db: Database) throws {
        try db.execute(sql: "CREATE TEMP TABLE listed_page (sha256 TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
        let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.listed_page (sha256) VALUES (?)")
        let decoder = JSONDecoder()
        let documents = try Data.fetchCursor(db, sql: "SELECT document FROM release")
        while let document = try documents.next() {
            for page in try decoder.decode(ReleaseDocument.self, from: document).pages { try insert.execute(arguments: [page]) }
        }
        try db.execute(sql: "DELETE FROM release_page WHERE sha256 NOT IN (SELECT sha256 FROM temp.listed_page)")
        try db.execute(sql: "DROP TABLE temp.listed_page")
    }

    /// Retires the releases not in `kept` (at `now`), brings back those in it, and removes the
    /// ones retired before `cutoff`; keeps the versions kept releases list. Returns how many
    /// releases were removed.
    static func retireReleases(keeping kept: Set<String>, now: Int64, removingBefore cutoff: Int64, in db: Database) throws -> Int {
        try db.execute(sql: "CREATE TEMP TABLE retained_release (id TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
        defer { try? db.execute(sql: "DROP TABLE temp.retained_release") }
        let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.retained_release (id) VALUES (?)")
        for id in kept { try insert.execute(arguments: [id]) }
        try db.execute(
            sql: "UPDATE release SET retired_at = ? WHERE retired_at IS NULL AND id NOT IN (SELECT id FROM temp.retained_release)",
            arguments: [now]
        )
        try db.execute(sql: "UPDATE release SET retired_at = NULL WHERE id IN (SELECT id FROM temp.retained_release)")
        try db.execute(sql: "DELETE FROM release WHERE retired_at < ? AND id NOT IN (SELECT id FROM temp.retained_release)", arguments: [cutoff])
        let removed = db.changesCount
        try keepVersionsOfKeptReleases(in: db)
        return removed
    }
}
