import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Release retention, channel by channel, whatever other channels do: each keeps what its signed
/// document names (its release, the fallbacks for older apps, a live rollout's release and base)
/// and the releases its last `keeping` moves back can reach (``rollbackHistory(of:in:)``), with
/// every version they list. The others are retired, and removed with the pages no kept release
/// lists once a grace period has passed, so a client that started fetching one before it was
/// retired can finish.
extension Catalog {
    /// Retires the releases retention no longer keeps (``retainedReleases(keeping:in:)``), and
    /// removes those retired before `cutoff` with the pages only they listed, and the reports of
    /// rollouts ended before it; versions a kept release lists are kept (a publish to another
    /// channel may have retired them). A promote brings a retired release back.
    /// Returns how many releases were removed.
    ///
    /// Periodic work: finding the pages still listed reads the kept release documents, O(kept
    /// releases × pages), never on the way of a publish or a request.
    public func collectReleases(keeping: Int, now: HTTPDate, before cutoff: HTTPDate) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "CREATE TEMP TABLE retained_release (id TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
            defer { try? db.execute(sql: "DROP TABLE temp.retained_release") }
            let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.retained_release (id) VALUES (?)")
            for id in try Self.retainedReleases(keeping: keeping, in: db) { try insert.execute(arguments: [id]) }
            try db.execute(
                sql: "UPDATE release SET retired_at = ? WHERE retired_at IS NULL AND id NOT IN (SELECT id FROM temp.retained_release)",
                arguments: [now.secondsSince1970]
            )
            try db.execute(sql: "UPDATE release SET retired_at = NULL WHERE id IN (SELECT id FROM temp.retained_release)")
            try db.execute(
                sql: "DELETE FROM release WHERE retired_at < ? AND id NOT IN (SELECT id FROM temp.retained_release)",
                arguments: [cutoff.secondsSince1970]
            )
            let removed = db.changesCount
            try Self.keepVersionsOfKeptReleases(in: db)
            // The reports of rollouts that ended before the cutoff: no gate weighs them again.
            try db.execute(
                sql: "DELETE FROM rollout_report WHERE rollout IN (SELECT id FROM rollout WHERE ended_at < ?)",
                arguments: [cutoff.secondsSince1970]
            )
            if removed > 0 {
                try Self.removeUnlistedPages(in: db)
                try db.execute(
                    sql: """
                        DELETE FROM document_delta
                        WHERE target NOT IN (SELECT id FROM release) AND target NOT IN (SELECT sha256 FROM release_page)
                        """
                )
            }
            return removed
        }
    }

    /// The ids of the releases retention keeps, channel by channel: its release, its fallbacks
    /// (``ReleaseWriter/fallbacks(of:for:in:)``, what its document names), and the releases of
    /// its rollback history up to `keeping` releases in all (its own first); and the release and
    /// base of each live rollout.
    static func retainedReleases(keeping: Int, in db: Database) throws -> Set<String> {
        var kept = Set(
            try String.fetchAll(db, sql: "SELECT release FROM rollout WHERE ended_at IS NULL UNION SELECT base FROM rollout WHERE ended_at IS NULL")
        )
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
    private static func removeUnlistedPages(in db: Database) throws {
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
}
