// The rules of staged rollouts, pure: a plan, the reports a gate weighs, and the gate. The
// catalog stores them (DepotStore), the scheduler and the dashboard apply them (DepotServer);
// their tests build with neither GRDB nor networking (DepotPolicyTests).

import DepotHTTP

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
    /// The networks this rollout's gate needs (`depot rollout start --min-networks`), in place of
    /// the server's `reports.gateNetworks`; `nil`: the server's. Fewer networks let a fleet behind
    /// one network (an office, a lab, one carrier NAT) advance, and let that many networks' forged
    /// reports move the rollout (SECURITY.md).
    public let minNetworks: Int?

    /// The plan of a rollout started without one (`POST /v1/channels/{name}/rollout`'s absent
    /// fields, `depot rollout start`, the dashboard's form): 1, 10, 50 and 100%, an hour a step,
    /// at most 2% failed of at least 200 reports, rolled back on its own, from the networks the
    /// server's `reports.gateNetworks` asks.
    public static let standard = RolloutPlan(
        checkedSteps: [1, 10, 50, 100],
        everySeconds: 3600,
        maxFailureRate: 0.02,
        minReports: 200,
        autoRollback: true
    )

    /// A plan whose values are checked already; ``RolloutPlan/init(steps:everySeconds:maxFailureRate:minReports:autoRollback:minNetworks:)``
    /// (DepotStore) checks them.
    public init(
        checkedSteps steps: [Int],
        everySeconds: Int64,
        maxFailureRate: Double,
        minReports: Int64,
        autoRollback: Bool,
        minNetworks: Int? = nil
    ) {
        self.steps = steps
        self.everySeconds = everySeconds
        self.maxFailureRate = maxFailureRate
        self.minReports = minReports
        self.autoRollback = autoRollback
        self.minNetworks = minNetworks
    }

    /// The networks the gate needs, and the setting that says so: the plan's own
    /// ``minNetworks``, else the server's `reports.gateNetworks` (`serverMinimum`).
    public func gateNetworks(serverMinimum: Int) -> GateNetworks {
        minNetworks.map { GateNetworks(count: $0, setting: "the rollout's --min-networks") }
            ?? GateNetworks(count: serverMinimum, setting: "reports.gateNetworks")
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

/// How many networks a gate needs, and which setting says so (``RolloutPlan/gateNetworks(serverMinimum:)``).
public struct GateNetworks: Sendable, Hashable {
    public let count: Int
    /// `reports.gateNetworks`, or `the rollout's --min-networks`: named in every reason that
    /// waits for networks, so an operator knows what to change.
    public let setting: String

    public init(count: Int, setting: String) {
        self.count = count
        self.setting = setting
    }
}

/// The gate of a running rollout: pure, so every case is a row of a table.
public enum RolloutGate {
    public enum Decision: Sendable, Equatable {
        /// Go to the next step (or complete, from the last but one).
        case advance(reason: String)
        /// Stop here: the release fails too many installs.
        case halt(reason: String)
        /// Not yet, for `cause`: the step's time has not passed, too few installs reported,
        /// from too few networks, or failures came from too few networks to halt.
        case wait(reason: String, cause: WaitCause)

        /// The reason, whatever the decision.
        public var reason: String {
            switch self {
            case .advance(let reason), .halt(let reason), .wait(let reason, _): reason
            }
        }

        /// The decision and its reason, as `depot rollout status`, the dashboard and the log say
        /// it: `waiting: reports from 1 of 3 networks (reports.gateNetworks); 12 of 3 reports`.
        public var verdict: String {
            switch self {
            case .advance(let reason): "advancing: \(reason)"
            case .halt(let reason): "halting: \(reason)"
            case .wait(let reason, _): "waiting: \(reason)"
            }
        }

        /// `advance`, `halt` or `wait`.
        public var name: String {
            switch self {
            case .advance: "advance"
            case .halt: "halt"
            case .wait: "wait"
            }
        }

        /// What changes only when the decision does (not with each new report): the server logs
        /// a rollout's verdict once per change of this.
        public var kind: String {
            guard case .wait(_, let cause) = self else { return name }
            return "wait for \(cause.rawValue)"
        }
    }

    /// What a waiting gate waits for.
    public enum WaitCause: String, Sendable, Hashable {
        /// The step's time.
        case time
        /// More reports.
        case reports
        /// Reports from more networks.
        case networks
        /// Failures over the limit, from too few networks to halt: a person decides.
        case failingNetworks = "failing networks"
    }

    /// The decision for a step that began at `stepStartedAt`, at `now`, from `evidence`: the
    /// reports received since it began. A failure rate over the limit halts as soon as there
    /// are `minReports` reports, failures among them from at least the gate's networks
    /// (``RolloutPlan/gateNetworks(serverMinimum:)``, `minNetworks` the server's), before the
    /// step's time is up: a bad release must not wait for the schedule. A step advances once its
    /// time is up with enough reports at or below the limit, from at least the gate's networks
    /// (when it needs reports at all). So fewer networks than that, whatever installs they
    /// invent, can neither halt nor advance a rollout. A wait's reason names what is missing
    /// and the setting that asks for it.
    public static func decide(plan: RolloutPlan, stepStartedAt: Int64, now: Int64, evidence: GateEvidence, minNetworks: Int = 1) -> Decision {
        let counts = evidence.counts
        let networks = plan.gateNetworks(serverMinimum: minNetworks)
        let rate =
            "\(counts.failed) of \(counted(counts.outcomes, "report")) failed (\(percent(counts.failureRate)), limit \(percent(plan.maxFailureRate)))"
        let fromNetworks = "from \(evidence.networks) of \(counted(Int64(networks.count), "network")) (\(networks.setting))"
        let reports = "\(counts.outcomes) of \(counted(plan.minReports, "report"))"
        if counts.outcomes >= max(1, plan.minReports), counts.failureRate > plan.maxFailureRate, evidence.failingNetworks >= networks.count {
            return .halt(reason: "the gate failed: \(rate), from \(counted(Int64(evidence.failingNetworks), "network"))")
        }
        guard now >= stepStartedAt + plan.everySeconds else {
            let until = HTTPDate(secondsSince1970: stepStartedAt + plan.everySeconds).imfFixdate
            let standing = plan.minReports == 0 ? "" : "; so far \(reports), \(fromNetworks)"
            return .wait(reason: "the step lasts until \(until)\(standing)", cause: .time)
        }
        guard counts.outcomes < max(1, plan.minReports) || counts.failureRate <= plan.maxFailureRate else {
            return .wait(
                reason:
                    "\(rate), from \(evidence.failingNetworks) of the \(counted(Int64(networks.count), "network")) a halt needs (\(networks.setting))",
                cause: .failingNetworks
            )
        }
        guard counts.outcomes >= plan.minReports else {
            return .wait(reason: "\(reports), \(fromNetworks)", cause: .reports)
        }
        guard plan.minReports == 0 || evidence.networks >= networks.count else {
            return .wait(reason: "reports \(fromNetworks); \(reports)", cause: .networks)
        }
        return .advance(reason: "the gate held: \(rate)")
    }

    /// `count` and `noun`, plural unless one: "1 report", "3 networks".
    public static func counted(_ count: Int64, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `rate` (0 to 1) as a percentage with at most one decimal: 0.025 → "2.5%". The one way
    /// reasons, `depot rollout` and the dashboard write a rate.
    public static func percent(_ rate: Double) -> String {
        let tenths = (rate * 1000).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))%" : "\(tenths / 10)%"
    }
}
