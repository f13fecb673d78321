import DepotHTTP
import DepotManifest
import DepotPolicy
import GRDB

/// Staged rollouts (docs/releases.md, "Rollouts"). Every change of a rollout is one transaction
/// that also adds an event to the channel's history and raises the channel's serial, so the
/// channel's document is signed again; a step moves only from the step it read (compare and
/// set), so a crash and restart never advances a rollout twice.
///
/// The staged rollouts of releases to channels (`rollout`): starting one, its steps, pauses, halts,
/// completion and rollback. It owns the table's SQL; the versions a rollout holds and the channel's
/// history are written through ``ReleaseStore``'s functions in the same transaction.
public struct RolloutStore: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The rollouts of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}

extension RolloutStore {
    /// Starts rolling the release `reference` names (its number or id) out to `channel`, at
    /// the plan's first step, with `salt` choosing the installs.
    ///
    /// - Throws: ``CatalogError`` `.notFound` for an unknown channel or release, `.gone` for a
    ///   release retention removed, `.conflict` when a rollout is under way or the channel is
    ///   on that release already.
    public func startRollout(_ reference: String, to channel: String, plan: RolloutPlan, salt: String, now: HTTPDate) async throws -> Rollout {
        try await database.write { db in
            guard let current = try ReleaseWriter.channel(channel, in: db) else {
                throw CatalogError("The channel \(channel) has no release to roll out from", code: .notFound)
            }
            if let live = current.rollout {
                throw CatalogError("\(channel) has a rollout of release \(live.releaseNumber ?? 0) under way", code: .conflict)
            }
            guard let target = try ReleaseTables.release(reference, in: db) else {
                throw CatalogError("There is no release \(reference)", code: .notFound)
            }
            guard target.id != current.release.id else {
                throw CatalogError("\(channel) is on release \(target.number) already", code: .conflict)
            }
            let at = now.secondsSince1970
            let percent = plan.steps[0]
            let id = try Self.insertRollout(
                channel: channel,
                target: target.id,
                base: current.release.id,
                salt: salt,
                plan: plan,
                percent: percent,
                state: "running",
                reason: "started at \(percent)%",
                now: at,
                in: db
            )
            try ReleaseTables.recordRolloutFiles(id, from: current.release, to: target, in: db)
            try Self.recordRolloutEvent(channel: channel, release: target.id, detail: "started at \(percent)%", now: at, in: db)
            return try Self.rollout(id: id, in: db)
        }
    }

    /// The newest rollout of `channel`, live or ended.
    public func rollout(of channel: String) async throws -> Rollout? {
        try await database.read { db in
            try Rollout.fetchAll(
                "SELECT \(Rollout.columns) FROM rollout WHERE channel = ? ORDER BY id DESC LIMIT 1",
                arguments: [channel],
                in: db
            ).first
        }
    }

    /// The rollouts the scheduler looks at: running ones.
    public func runningRollouts() async throws -> [Rollout] {
        try await database.read { db in
            try Rollout.fetchAll("SELECT \(Rollout.columns) FROM rollout WHERE state = 'running' ORDER BY id", in: db)
        }
    }

    /// What a person can do to a live rollout.
    public enum RolloutAction: Sendable {
        /// Holds it at its percentage.
        case pause
        /// Goes on from its percentage: a new step starts now, its reports counted afresh.
        case resume
        /// Holds it at its percentage, as a failed gate does.
        case halt
    }

    /// Pauses, resumes or halts the live rollout of `channel`.
    ///
    /// - Throws: ``CatalogError`` `.notFound` when no rollout is under way.
    public func changeRollout(of channel: String, _ action: RolloutAction, now: HTTPDate) async throws -> Rollout {
        try await database.write { db in
            guard let rollout = try Self.liveRollout(of: channel, in: db) else {
                throw CatalogError("\(channel) has no rollout under way", code: .notFound)
            }
            let (state, detail): (Rollout.State, String) =
                switch action {
                case .pause: (.paused, "paused at \(rollout.percent)%")
                case .resume: (.running, "resumed at \(rollout.percent)%")
                case .halt: (.halted, "halted at \(rollout.percent)% by hand")
                }
            guard state != rollout.state else { return rollout }
            try Self.update(rollout, state: state, reason: detail, stepStartedAt: action == .resume ? now.secondsSince1970 : nil, in: db)
            try Self.recordRolloutEvent(channel: channel, release: rollout.release, detail: detail, now: now.secondsSince1970, in: db)
            return try Self.rollout(id: rollout.id, in: db)
        }
    }

    /// What the scheduler decided for a running rollout, carried out.
    public enum RolloutMove: Sendable, Equatable {
        /// The next step began, at this percentage.
        case advanced(Int)
        /// The rollout reached 100%: the channel points to its release.
        case completed
        /// The gate failed: held at its percentage.
        case halted
        /// The gate failed and the plan rolls back: every install goes to the base release.
        case rolledBack
    }

    /// Applies the gate's `decision`, made on `read`, to that rollout if it is still as read:
    /// running, at the same step, begun at the same time. A scheduler that read an older state
    /// (a tick overlapping another, a pause and resume between, a restart) does nothing. Returns
    /// the move, or `nil` when there was none (a wait, or the rollout moved meanwhile), and the
    /// paths whose live version changed (a completion moves the channel).
    public func applyGate(
        _ decision: RolloutGate.Decision,
        to read: Rollout,
        now: HTTPDate
    ) async throws -> (
        move: RolloutMove, changedPaths: [String]
    )? {
        try await database.write { db in
            let rollout = try Self.rollout(id: read.id, in: db)
            guard rollout.state == .running, rollout.step == read.step, rollout.stepStartedAt == read.stepStartedAt else { return nil }
            let (id, step) = (rollout.id, rollout.step)
            let at = now.secondsSince1970
            switch decision {
            case .wait:
                return nil
            case .halt(let reason):
                if rollout.plan.autoRollback {
                    _ = try Self.rollBack(rollout, reason: reason + "; rolled back", now: at, in: db)
                    return (.rolledBack, [])
                }
                try Self.update(rollout, state: .halted, reason: "halted at \(rollout.percent)%: \(reason)", in: db)
                try Self.recordRolloutEvent(
                    channel: rollout.channel,
                    release: rollout.release,
                    detail: "halted at \(rollout.percent)%: \(reason)",
                    now: at,
                    in: db
                )
                return (.halted, [])
            case .advance(let reason):
                let next = rollout.plan.steps[min(step + 1, rollout.plan.steps.count - 1)]
                guard next < 100 else { return (.completed, try Self.complete(rollout, reason: reason, now: at, in: db)) }
                let detail = "\(rollout.percent)% → \(next)%: \(reason)"
                try db.execute(
                    sql: "UPDATE rollout SET step = step + 1, percent = ?, step_started_at = ?, reason = ? WHERE id = ?",
                    arguments: [next, at, detail, id]
                )
                try Self.recordRolloutEvent(channel: rollout.channel, release: rollout.release, detail: detail, now: at, in: db)
                return (.advanced(next), [])
            }
        }
    }

    /// Completes `rollout`: the channel moves to its release. Returns the paths whose live
    /// version changed.
    private static func complete(_ rollout: Rollout, reason: String, now: Int64, in db: Database) throws -> [String] {
        guard let target = try ReleaseSummary.fetch(id: rollout.release, in: db) else {
            throw CatalogError("The release of the rollout of \(rollout.channel) is no longer kept", code: .gone)
        }
        let detail = "completed: \(reason)"
        try db.execute(
            sql: "UPDATE rollout SET state = 'completed', step = ?, percent = 100, ended_at = ?, reason = ? WHERE id = ?",
            arguments: [rollout.plan.steps.count - 1, now, detail, rollout.id]
        )
        try ReleaseTables.forgetRolloutFiles(of: rollout.id, in: db)
        let diff = try ReleaseTables.move(rollout.channel, to: target, kind: "promote", restores: nil, detail: "rollout " + detail, now: now, in: db)
            .diff
        return diff.added.map(\.path) + diff.changed.map(\.after.path) + diff.removed.map(\.path)
    }

    /// Rolls the live rollout of `channel` back: every install goes to the release it replaced.
    ///
    /// - Throws: ``CatalogError`` `.notFound` when no rollout is under way.
    public func rollBackRollout(of channel: String, now: HTTPDate) async throws -> Rollout {
        try await database.write { db in
            guard let rollout = try Self.liveRollout(of: channel, in: db) else {
                throw CatalogError("\(channel) has no rollout under way", code: .notFound)
            }
            _ = try Self.rollBack(rollout, reason: "rolled back by hand", now: now.secondsSince1970, in: db)
            return try Self.rollout(id: rollout.id, in: db)
        }
    }

    static func liveRollout(of channel: String, in db: Database) throws -> Rollout? {
        try Rollout.fetchAll("SELECT \(Rollout.columns) FROM rollout WHERE channel = ? AND ended_at IS NULL", arguments: [channel], in: db).first
    }

    /// A publish or promote would change the release a live rollout of `channel` replaces: refused.
    static func refuseDuringRollout(of channel: ChannelState?) throws {
        if let channel, let rollout = channel.rollout {
            throw CatalogError(
                "\(channel.name) has a rollout of release \(rollout.releaseNumber ?? 0) under way: let it complete, or roll it back (depot rollout rollback), first",
                code: .conflict
            )
        }
    }

    /// Ends `rollout` rolled back; the channel's pointer (the base release) stays, its document
    /// loses the rollout. Returns the move as a rollback of the channel describes it.
    static func rollBack(_ rollout: Rollout, reason: String, now: Int64, in db: Database) throws -> ReleaseStore.ChannelMove {
        try db.execute(
            sql: "UPDATE rollout SET state = 'rolled-back', ended_at = ?, reason = ? WHERE id = ?",
            arguments: [now, reason, rollout.id]
        )
        try ReleaseTables.forgetRolloutFiles(of: rollout.id, in: db)
        let serial = try recordRolloutEvent(
            channel: rollout.channel,
            release: rollout.base,
            detail: "rollback at \(rollout.percent)%: \(reason)",
            now: now,
            in: db
        )
        guard let current = try ReleaseWriter.channel(rollout.channel, in: db) else {
            throw CatalogError("The channel \(rollout.channel) has no release", code: .notFound)
        }
        return ReleaseStore.ChannelMove(
            channel: rollout.channel,
            from: try ReleaseSummary.fetch(id: rollout.release, in: db),
            to: current.release,
            serial: serial,
            diff: ReleaseDiff(),
            rolloutRolledBack: true
        )
    }

    @discardableResult
    static func recordRolloutEvent(channel: String, release: String, detail: String, now: Int64, in db: Database) throws -> Int64 {
        let serial = try ReleaseWriter.recordEvent(channel, release: release, kind: "rollout", detail: detail, now: now, in: db)
        try ReleaseTables.setSerial(serial, of: channel, now: now, in: db)
        return serial
    }

    private static func update(_ rollout: Rollout, state: Rollout.State, reason: String, stepStartedAt: Int64? = nil, in db: Database) throws {
        try db.execute(
            sql: "UPDATE rollout SET state = ?, reason = ?, step_started_at = COALESCE(?, step_started_at) WHERE id = ?",
            arguments: [state.rawValue, reason, stepStartedAt, rollout.id]
        )
    }

    private static func rollout(id: Int64, in db: Database) throws -> Rollout {
        guard let rollout = try Rollout.fetchAll("SELECT \(Rollout.columns) FROM rollout WHERE id = ?", arguments: [id], in: db).first else {
            throw CatalogError("There is no rollout \(id)", code: .notFound)
        }
        return rollout
    }
}
