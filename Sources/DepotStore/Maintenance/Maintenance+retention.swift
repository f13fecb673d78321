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
extension Maintenance {
    /// Retires the releases retention no longer keeps (``ReleaseStore/retainedReleases(keeping:rollouts:in:)``), and
    /// removes those retired before `cutoff` with the pages only they listed, and the reports of
    /// rollouts ended before it; versions a kept release lists are kept (a publish to another
    /// channel may have retired them). A promote brings a retired release back.
    /// Returns how many releases were removed.
    ///
    /// Periodic work: finding the pages still listed reads the kept release documents, O(kept
    /// releases × pages), never on the way of a publish or a request.
    public func collectReleases(keeping: Int, now: HTTPDate, before cutoff: HTTPDate) async throws -> Int {
        try await database.write { db in
            let kept = try ReleaseTables.retainedReleases(keeping: keeping, rollouts: try RolloutStore.liveReleases(in: db), in: db)
            let removed = try ReleaseTables.retireReleases(keeping: kept, now: now.secondsSince1970, removingBefore: cutoff.secondsSince1970, in: db)
            // The reports of rollouts that ended before the cutoff: no gate weighs them again.
            try ReportLedger.forgetReports(of: try RolloutStore.rollouts(endedBefore: cutoff.secondsSince1970, in: db), in: db)
            if removed > 0 {
                try ReleaseTables.removeUnlistedPages(in: db)
                // The documents still stored, gathered in a temporary table of this transaction.
                try db.execute(sql: "CREATE TEMP TABLE stored_document (id TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
                defer { try? db.execute(sql: "DROP TABLE temp.stored_document") }
                try ReleaseTables.addDocuments(to: "temp.stored_document", in: db)
                try BlobTables.forgetDocumentPatches(notIn: "temp.stored_document", in: db)
            }
            return removed
        }
    }
}
