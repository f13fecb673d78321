// The rules of staged rollouts, pure: a plan, the reports a gate weighs, and the gate. The
// catalog stores them (DepotStore), the scheduler and the dashboard apply them (DepotServer);
// their tests build with neither GRDB nor networking (DepotPolicyTests).

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

    /// A plan whose values are checked already; ``RolloutPlan/init(steps:everySeconds:maxFailureRate:minReports:autoRollback:)``
    /// (DepotStore) checks them.
    package init(checkedSteps steps: [Int], everySeconds: Int64, maxFailureRate: Double, minReports: Int64, autoRollback: Bool) {
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
