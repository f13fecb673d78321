import DepotManifest
import GRDB

/// A channel's moves and their history, in the caller's transaction.
extension ReleaseTables {
    /// The release `reference` names: its id, or its number.
    static func release(_ reference: String, in db: Database) throws -> ReleaseSummary? {
        if reference.utf8.count == 64 { return try ReleaseSummary.fetch(id: reference.lowercased(), in: db) }
        return try Int64(reference).flatMap { try ReleaseSummary.fetch(number: $0, in: db) }
    }

    static func move(
        _ channel: String,
        to target: ReleaseSummary,
        kind: String,
        restores: Int64?,
        detail: String? = nil,
        now: Int64,
        in db: Database
    ) throws -> ReleaseStore.ChannelMove {
        let current = try ReleaseWriter.channel(channel, in: db)
        if let current, current.release.id == target.id {
            return ReleaseStore.ChannelMove(channel: channel, from: current.release, to: target, serial: current.serial, diff: ReleaseDiff())
        }
        let diff = try ReleaseWriter.diff(from: current?.release, to: target, in: db)
        try ReleaseWriter.apply(diff, to: channel, in: db)
        // A release retention retired is kept again while a channel points to it, and for the
        // grace period once none does.
        try db.execute(sql: "UPDATE release SET retired_at = NULL WHERE id = ?", arguments: [target.id])
        let serial = try ReleaseWriter.point(channel, to: target, kind: kind, restores: restores, detail: detail, now: now, in: db)
        return ReleaseStore.ChannelMove(channel: channel, from: current?.release, to: target, serial: serial, diff: diff)
    }

    /// The moves successive rollbacks of `channel` go back to, newest first (`serial` and
    /// `release` of each): the moves before its latest one, a rollback standing for the event it
    /// restored. Rollbacks use the first; retention keeps the releases of the first ones.
    ///
    /// - Throws: ``CatalogError`` `.notFound` for a channel that never moved.
    static func rollbackHistory(of channel: String, in db: Database) throws -> RowCursor {
        // Rollout events move no pointer: the moves are publishes, promotes and rollbacks.
        let events = "SELECT serial, release, kind, restores FROM channel_event WHERE channel = ? AND kind != 'rollout'"
        guard let latest = try Row.fetchOne(db, sql: events + " ORDER BY serial DESC LIMIT 1", arguments: [channel]) else {
            throw CatalogError("The channel \(channel) has no release", code: .notFound)
        }
        let from: Int64 = latest["kind"] == "rollback" ? latest["restores"] : latest["serial"]
        return try Row.fetchCursor(db, sql: events + " AND serial < ? ORDER BY serial DESC", arguments: [channel, from])
    }
}
