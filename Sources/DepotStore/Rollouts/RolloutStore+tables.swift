import DepotManifest
import GRDB

/// The rollouts' rows other stores and ``Maintenance`` read and write inside their own
/// transaction: retention, the reports' counting, an import.
extension RolloutStore {
    /// The release and base of every live rollout: what retention keeps for them.
    static func liveReleases(in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT release FROM rollout WHERE ended_at IS NULL UNION SELECT base FROM rollout WHERE ended_at IS NULL"))
    }

    /// The ids of the rollouts that ended before `cutoff` (seconds).
    static func rollouts(endedBefore cutoff: Int64, in db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM rollout WHERE ended_at < ?", arguments: [cutoff])
    }

    /// The id, channel, release and step start of every live rollout: what a report counts toward.
    static func liveSteps(in db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT id, channel, release, step_started_at FROM rollout WHERE ended_at IS NULL")
    }

    /// Stores a rollout a mirrored channel's document names, halted at its percentage with its
    /// salt (an import); returns its id.
    static func importRollout(
        _ rollout: ChannelDocument.Rollout,
        channel: String,
        base release: ReleaseSummary,
        target: ReleaseSummary,
        now: Int64,
        in db: Database
    ) throws -> Int64 {
        let steps = rollout.percent < 100 ? "\(max(rollout.percent, 1)),100" : "100"
        try db.execute(
            sql: """
                INSERT INTO rollout (channel, release, base, salt, steps, step, percent, state, every_seconds, max_failure_rate, min_reports,
                    auto_rollback, started_at, step_started_at, reason)
                VALUES (?, ?, ?, ?, ?, 0, ?, 'halted', 3600, 1, 0, 0, ?, ?, ?)
                """,
            arguments: [
                channel, target.id, release.id, rollout.salt, steps, rollout.percent, now, now,
                "imported from a mirror at \(rollout.percent)%, halted: resume or roll back",
            ]
        )
        return db.lastInsertedRowID
    }
}
