import GRDB

/// A staged rollout of a release to a channel's installs, as the catalog keeps it
/// (docs/releases.md, "Rollouts").
public struct Rollout: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Advancing on schedule, step by step, while the gate holds.
        case running
        /// Held at its percentage by a person; ``Catalog/resumeRollout(of:now:)`` goes on.
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

    static let columns = """
        rollout.id, rollout.channel, rollout.release, r.number AS release_number, r.critical AS release_critical,
        r.minimum_client_version AS release_minimum_client_version, rollout.base, b.number AS base_number, rollout.salt,
        rollout.steps, rollout.step, rollout.percent, rollout.state, rollout.every_seconds, rollout.max_failure_rate, rollout.min_reports,
        rollout.auto_rollback, rollout.started_at, rollout.step_started_at, rollout.ended_at, rollout.reason
        """
    static let from = "rollout LEFT JOIN release r ON r.id = rollout.release LEFT JOIN release b ON b.id = rollout.base"

    init(row: Row) {
        id = row["id"]
        channel = row["channel"]
        release = row["release"]
        releaseNumber = row["release_number"]
        releaseCritical = row["release_critical"] ?? false
        releaseMinimumClientVersion = row["release_minimum_client_version"]
        base = row["base"]
        baseNumber = row["base_number"]
        salt = row["salt"]
        plan = RolloutPlan(
            checkedSteps: (row["steps"] as String).split(separator: ",").compactMap { Int($0) },
            everySeconds: row["every_seconds"],
            maxFailureRate: row["max_failure_rate"],
            minReports: row["min_reports"],
            autoRollback: row["auto_rollback"]
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

/// How a rollout goes: its steps and its gate.
public struct RolloutPlan: Sendable, Hashable {
    /// The percentages of installs, rising, the last 100.
    public let steps: [Int]
    /// The least time a step lasts.
    public let everySeconds: Int64
    /// The highest share of reporting installs that may fail (0 to 1) for a step to advance.
    public let maxFailureRate: Double
    /// The fewest reports since the step began for it to advance, or to halt.
    public let minReports: Int64
    /// Whether a halt by the gate also rolls the rollout back.
    public let autoRollback: Bool

    /// The plan of a rollout started without one (`POST /v1/channels/{name}/rollout`'s absent
    /// fields, `depot rollout start`, the dashboard's form): 1, 10, 50 and 100%, an hour a step,
    /// at most 2% failed of at least 200 reports, rolled back on its own.
    public static let standard = RolloutPlan(
        checkedSteps: [1, 10, 50, 100],
        everySeconds: 3600,
        maxFailureRate: 0.02,
        minReports: 200,
        autoRollback: true
    )

    /// A plan, checked.
    ///
    /// - Throws: ``CatalogError`` `.invalid` with what is wrong.
    public init(steps: [Int], everySeconds: Int64, maxFailureRate: Double, minReports: Int64, autoRollback: Bool) throws {
        guard !steps.isEmpty, steps.last == 100, steps.allSatisfy({ (1...100).contains($0) }), zip(steps, steps.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw CatalogError("The steps must be rising percentages from 1 to 100, the last 100, as 1,10,50,100", code: .invalid)
        }
        guard everySeconds >= 1 else { throw CatalogError("A step lasts at least 1 second", code: .invalid) }
        guard (0...1).contains(maxFailureRate) else { throw CatalogError("The failure rate limit is between 0% and 100%", code: .invalid) }
        guard minReports >= 0 else { throw CatalogError("The minimum number of reports is 0 or more", code: .invalid) }
        self.init(checkedSteps: steps, everySeconds: everySeconds, maxFailureRate: maxFailureRate, minReports: minReports, autoRollback: autoRollback)
    }

    init(checkedSteps steps: [Int], everySeconds: Int64, maxFailureRate: Double, minReports: Int64, autoRollback: Bool) {
        self.steps = steps
        self.everySeconds = everySeconds
        self.maxFailureRate = maxFailureRate
        self.minReports = minReports
        self.autoRollback = autoRollback
    }
}

/// What installs reported about a release over a span of minutes: each install counted once per
/// kind.
public struct ReportCounts: Sendable, Hashable, Codable {
    public var applied: Int64 = 0
    public var failed: Int64 = 0
    public var healthy: Int64 = 0

    public init(applied: Int64 = 0, failed: Int64 = 0, healthy: Int64 = 0) {
        self.applied = applied
        self.failed = failed
        self.healthy = healthy
    }

    /// Installs that applied the release or failed to: the reports a gate weighs.
    public var outcomes: Int64 { applied + failed }

    /// `failed` over ``outcomes``; 0 without any.
    public var failureRate: Double { outcomes == 0 ? 0 : Double(failed) / Double(outcomes) }
}

/// What a gate weighs: the reports of a rollout's current period, and how many networks sent
/// them (``Catalog/gateEvidence(of:)``).
public struct GateEvidence: Sendable, Hashable {
    public var counts = ReportCounts()
    /// Networks whose installs reported an outcome (applied or failed).
    public var networks = 0
    /// Networks whose installs reported a failure.
    public var failingNetworks = 0

    public init(counts: ReportCounts = ReportCounts(), networks: Int = 0, failingNetworks: Int = 0) {
        self.counts = counts
        self.networks = networks
        self.failingNetworks = failingNetworks
    }
}

/// The gate of a running rollout: pure, so every case is a row of a table.
public enum RolloutGate {
    public enum Decision: Sendable, Equatable {
        /// Go to the next step (or complete, from the last but one).
        case advance(reason: String)
        /// Stop here: the release fails too many installs.
        case halt(reason: String)
        /// Not yet: the step's time has not passed, or too few installs reported.
        case wait(reason: String)
    }

    /// The decision for a step that began at `stepStartedAt`, at `now`, from `evidence`: the
    /// reports received since it began. A failure rate over the limit halts as soon as there
    /// are `minReports` reports, failures among them from at least `minNetworks` networks,
    /// before the step's time is up: a bad release must not wait for the schedule. A step
    /// advances once its time is up with enough reports at or below the limit, from at least
    /// `minNetworks` networks (when it needs reports at all). So one network, whatever installs
    /// it invents, can neither halt nor advance a rollout.
    public static func decide(plan: RolloutPlan, stepStartedAt: Int64, now: Int64, evidence: GateEvidence, minNetworks: Int = 1) -> Decision {
        let counts = evidence.counts
        let rate = "\(counts.failed) of \(counts.outcomes) reports failed (\(percent(counts.failureRate)), limit \(percent(plan.maxFailureRate)))"
        if counts.outcomes >= max(1, plan.minReports), counts.failureRate > plan.maxFailureRate, evidence.failingNetworks >= minNetworks {
            return .halt(reason: "the gate failed: \(rate), from \(evidence.failingNetworks) networks")
        }
        guard now >= stepStartedAt + plan.everySeconds else {
            return .wait(reason: "the step lasts until \(stepStartedAt + plan.everySeconds)")
        }
        guard counts.outcomes < max(1, plan.minReports) || counts.failureRate <= plan.maxFailureRate else {
            return .wait(reason: "\(rate), from \(evidence.failingNetworks) of the \(minNetworks) networks a halt needs")
        }
        guard counts.outcomes >= plan.minReports else {
            return .wait(reason: "\(counts.outcomes) of the \(plan.minReports) reports needed")
        }
        guard plan.minReports == 0 || evidence.networks >= minNetworks else {
            return .wait(reason: "reports from \(evidence.networks) of the \(minNetworks) networks needed")
        }
        return .advance(reason: "the gate held: \(rate)")
    }

    /// `rate` (0 to 1) as a percentage with at most one decimal: 0.025 → "2.5%". The one way
    /// reasons, `depot rollout` and the dashboard write a rate.
    public static func percent(_ rate: Double) -> String {
        let tenths = (rate * 1000).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))%" : "\(tenths / 10)%"
    }
}
