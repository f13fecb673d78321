import DepotManifest
import DepotPolicy
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

    /// Stores a rollout of `target` over `base` under `plan`, at its first step with `percent`,
    /// in `state`; returns its id. The one insert of a rollout: a start's and an import's.
    static func insertRollout(
        channel: String,
        target: String,
        base: String,
        salt: String,
        plan: RolloutPlan,
        percent: Int,
        state: String,
        reason: String,
        now: Int64,
        in db: Database
    ) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO rollout (channel, release, base, salt, steps, step, percent, state, every_seconds, max_failure_rate, min_reports,
                    auto_rollback, min_networks, started_at, step_started_at, reason)
                VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                channel, target, base, salt, plan.steps.map(String.init).joined(separator: ","), percent, state, plan.everySeconds,
                plan.maxFailureRate, plan.minReports, plan.autoRollback, plan.minNetworks, now, now, reason,
            ]
        )
        return db.lastInsertedRowID
    }

    /// Stores a rollout a mirrored channel's document names, halted at its percentage with its
    /// salt (an import); returns its id. A mirror holds no plan, so it gets the standard one's
    /// (``RolloutPlan/standard``) from its percentage on: its steps above it, an hour a step,
    /// and its gate, so that a resumed rollout of a bad release is still halted by its reports.
    static func importRollout(
        _ rollout: ChannelDocument.Rollout,
        channel: String,
        base release: ReleaseSummary,
        target: ReleaseSummary,
        now: Int64,
        in db: Database
    ) throws -> Int64 {
        let standard = RolloutPlan.standard
        let first = max(rollout.percent, 1)
        let plan = RolloutPlan(
            checkedSteps: [first] + standard.steps.filter { $0 > first },
            everySeconds: standard.everySeconds,
            maxFailureRate: standard.maxFailureRate,
            minReports: standard.minReports,
            autoRollback: standard.autoRollback
        )
        return try insertRollout(
            channel: channel,
            target: target.id,
            base: release.id,
            salt: rollout.salt,
            plan: plan,
            percent: rollout.percent,
            state: "halted",
            reason: "imported from a mirror at \(rollout.percent)%, halted: resume (under the standard plan's steps and gate) or roll back",
            now: now,
            in: db
        )
    }
}
