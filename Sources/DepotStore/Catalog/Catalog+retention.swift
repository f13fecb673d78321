import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Release retention: every release a channel points to is kept, and the last `keeping`
/// releases; the others are retired, and removed with the pages no kept release lists once a
/// grace period has passed, so a client that started fetching one before it was retired can
/// finish.
extension Catalog {
    /// Retires the releases retention no longer keeps, and removes those retired before
    /// `cutoff` with the pages only they listed, and the reports of rollouts ended before it. A
    /// promote brings a retired release back.
    /// Returns how many releases were removed.
    ///
    /// Periodic work: finding the pages still listed reads the kept release documents, O(kept
    /// releases × pages), never on the way of a publish or a request.
    public func collectReleases(keeping: Int, now: HTTPDate, before cutoff: HTTPDate) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE release SET retired_at = ?
                    WHERE retired_at IS NULL AND id NOT IN (SELECT release FROM channel) AND id NOT IN (SELECT release FROM rollout WHERE ended_at IS NULL)
                    AND number <= (SELECT MAX(number) FROM release) - ?
                    """,
                arguments: [now.secondsSince1970, max(0, keeping)]
            )
            try db.execute(
                sql:
                    "DELETE FROM release WHERE retired_at < ? AND id NOT IN (SELECT release FROM channel) AND id NOT IN (SELECT release FROM rollout WHERE ended_at IS NULL)",
                arguments: [cutoff.secondsSince1970]
            )
            let removed = db.changesCount
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
