import DepotPolicy
import GRDB

/// A staged rollout of a release to a channel's installs, as the catalog keeps it
/// (docs/releases.md, "Rollouts").
public struct Rollout: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Advancing on schedule, step by step, while the gate holds.
        case running
        /// Held at its percentage by a person; ``RolloutStore/changeRollout(of:_:now:)`` resumes it.
        case paused
        /// Held at its percentage because the gate failed (or a person halted it).
        case halted
        /// Reached 100%: the channel points to the release.
        case completed
        /// Ended with every install sent to the release it replaced.
        case rolledBack = "rolled-back"
    }

    public let id: Int64
    public let channel: String
    /// The release rolled out, and its number (`nil` once retention removed it).
    public let release: String
    public let releaseNumber: Int64?
    /// The rolled-out release's ``ReleaseSummary/critical`` and
    /// ``ReleaseSummary/minimumClientVersion``.
    public let releaseCritical: Bool
    public let releaseMinimumClientVersion: String?
    /// The release it replaces, and its number.
    public let base: String
    public let baseNumber: Int64?
    public let salt: String
    public let plan: RolloutPlan
    /// The index in ``RolloutPlan/steps`` of the current step, and its percentage.
    public let step: Int
    public let percent: Int
    public let state: State
    /// Seconds since 1970.
    public let startedAt: Int64
    public let stepStartedAt: Int64
    public let endedAt: Int64?
    /// The last decision, in words.
    public let reason: String

    /// Whether the channel's document names the rollout: not completed nor rolled back.
    public var isLive: Bool { endedAt == nil }

    /// What its gate decides at `now` on `evidence` (``ReportLedger/gateEvidence(of:)``), the server
    /// asking `serverMinNetworks` networks unless the plan says otherwise: what the next tick
    /// does. `nil` unless it runs: a paused, halted or ended rollout's gate is not weighed. The
    /// one rule the scheduler, `depot rollout status` and the dashboard use.
    public func gate(evidence: GateEvidence, serverMinNetworks: Int, now: Int64) -> RolloutGate.Decision? {
        guard state == .running else { return nil }
        return RolloutGate.decide(plan: plan, stepStartedAt: stepStartedAt, now: now, evidence: evidence, minNetworks: serverMinNetworks)
    }

    static let columns = """
        id, channel, release, base, salt, steps, step, percent, state, every_seconds, max_failure_rate, min_reports, auto_rollback,
        min_networks, started_at, step_started_at, ended_at, reason
        """

    /// The rollouts `sql` (a query of ``columns`` from `rollout`) reads, each with the numbers of
    /// its release and base (``ReleaseSummary``; `nil` once retention removed one).
    static func fetchAll(_ sql: String, arguments: StatementArguments = [], in db: Database) throws -> [Rollout] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            Rollout(row: row, release: try ReleaseSummary.fetch(id: row["release"], in: db), base: try ReleaseSummary.fetch(id: row["base"], in: db))
        }
    }

    init(row: Row, release summary: ReleaseSummary?, base baseSummary: ReleaseSummary?) {
        id = row["id"]
        channel = row["channel"]
        release = row["release"]
        releaseNumber = summary?.number
        releaseCritical = summary?.critical ?? false
        releaseMinimumClientVersion = summary?.minimumClientVersion
        base = row["base"]
        baseNumber = baseSummary?.number
        salt = row["salt"]
        plan = RolloutPlan(
            checkedSteps: (row["steps"] as String).split(separator: ",").compactMap { Int($0) },
            everySeconds: row["every_seconds"],
            maxFailureRate: row["max_failure_rate"],
            minReports: row["min_reports"],
            autoRollback: row["auto_rollback"],
            minNetworks: row["min_networks"]
        )
        step = row["step"]
        percent = row["percent"]
        state = State(rawValue: row["state"]) ?? .halted
        startedAt = row["started_at"]
        stepStartedAt = row["step_started_at"]
        endedAt = row["ended_at"]
        reason = row["reason"]
    }
}

extension RolloutPlan {
    /// A plan, checked.
    ///
    /// - Throws: ``CatalogError`` `.invalid` with what is wrong.
    public init(steps: [Int], everySeconds: Int64, maxFailureRate: Double, minReports: Int64, autoRollback: Bool, minNetworks: Int? = nil) throws {
        guard !steps.isEmpty, steps.last == 100, steps.allSatisfy({ (1...100).contains($0) }), zip(steps, steps.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw CatalogError("The steps must be rising percentages from 1 to 100, the last 100, as 1,10,50,100", code: .invalid)
        }
        guard everySeconds >= 1 else { throw CatalogError("A step lasts at least 1 second", code: .invalid) }
        guard (0...1).contains(maxFailureRate) else { throw CatalogError("The failure rate limit is between 0% and 100%", code: .invalid) }
        guard minReports >= 0 else { throw CatalogError("The minimum number of reports is 0 or more", code: .invalid) }
        guard (minNetworks ?? 1) >= 1 else { throw CatalogError("A gate needs reports from at least 1 network", code: .invalid) }
        self.init(
            checkedSteps: steps,
            everySeconds: everySeconds,
            maxFailureRate: maxFailureRate,
            minReports: minReports,
            autoRollback: autoRollback,
            minNetworks: minNetworks
        )
    }
}
