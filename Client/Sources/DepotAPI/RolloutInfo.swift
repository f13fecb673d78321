/// The body of `POST /v1/channels/{name}/rollout`: which release to roll out, and how. Absent
/// fields take the defaults of `depot rollout start`.
public struct RolloutRequest: Codable, Sendable, Equatable {
    /// The release: its number, or its id.
    public var release: String
    /// Percentages of installs, rising, the last 100 (default 1, 10, 50, 100).
    public var steps: [Int]?
    /// The least seconds a step lasts (default 3600).
    public var everySeconds: Int64?
    /// The same as a duration (``DurationText``: `1h`, `15m`), in place of `everySeconds`.
    public var every: String?
    /// The highest share of reporting installs that may fail for a step to advance, 0 to 1
    /// (default 0.02).
    public var maxFailureRate: Double?
    /// The fewest reports since a step began for it to advance, or halt (default 200).
    public var minReports: Int64?
    /// Whether a failed gate also rolls the rollout back (default true).
    public var autoRollback: Bool?
    /// The networks the gate needs reports from, for this rollout (default: the server's
    /// `reports.gateNetworks`). Fewer let a fleet behind few networks advance, and let forged
    /// reports from that many networks advance or halt the rollout (SECURITY.md).
    public var minNetworks: Int?

    public init(
        release: String,
        steps: [Int]? = nil,
        everySeconds: Int64? = nil,
        maxFailureRate: Double? = nil,
        minReports: Int64? = nil,
        autoRollback: Bool? = nil,
        every: String? = nil,
        minNetworks: Int? = nil
    ) {
        self.every = every
        self.minNetworks = minNetworks
        self.release = release
        self.steps = steps
        self.everySeconds = everySeconds
        self.maxFailureRate = maxFailureRate
        self.minReports = minReports
        self.autoRollback = autoRollback
    }
}

/// A rollout as the publisher API describes it: the reply to every `/v1/channels/{name}/rollout`
/// request.
public struct RolloutInfo: Codable, Sendable, Equatable {
    public var channel: String
    /// The release rolled out and the one it replaces: numbers (`nil` once removed) and ids.
    public var release: String
    public var releaseNumber: Int64?
    public var base: String
    public var baseNumber: Int64?
    /// `running`, `paused`, `halted`, `completed` or `rolled-back`.
    public var state: String
    public var percent: Int
    public var steps: [Int]
    /// The index of the current step in `steps`.
    public var step: Int
    public var everySeconds: Int64
    public var maxFailureRate: Double
    public var minReports: Int64
    public var autoRollback: Bool
    /// HTTP dates.
    public var startedAt: String
    public var stepStartedAt: String
    public var endedAt: String?
    /// The last decision, in words.
    public var reason: String
    /// What installs reported about the release since the current step began.
    public var reports: ReportTotals
    /// The rollout's own minimum of gate networks (`--min-networks`); `nil`: the server's.
    public var minNetworks: Int?
    /// What the gate decides now, and why: `nil` unless the rollout runs.
    public var gate: RolloutGateInfo?

    public init(
        channel: String,
        release: String,
        releaseNumber: Int64?,
        base: String,
        baseNumber: Int64?,
        state: String,
        percent: Int,
        steps: [Int],
        step: Int,
        everySeconds: Int64,
        maxFailureRate: Double,
        minReports: Int64,
        autoRollback: Bool,
        startedAt: String,
        stepStartedAt: String,
        endedAt: String?,
        reason: String,
        reports: ReportTotals,
        minNetworks: Int? = nil,
        gate: RolloutGateInfo? = nil
    ) {
        self.channel = channel
        self.release = release
        self.releaseNumber = releaseNumber
        self.base = base
        self.baseNumber = baseNumber
        self.state = state
        self.percent = percent
        self.steps = steps
        self.step = step
        self.everySeconds = everySeconds
        self.maxFailureRate = maxFailureRate
        self.minReports = minReports
        self.autoRollback = autoRollback
        self.startedAt = startedAt
        self.stepStartedAt = stepStartedAt
        self.endedAt = endedAt
        self.reason = reason
        self.reports = reports
        self.minNetworks = minNetworks
        self.gate = gate
    }
}

/// A running rollout's gate as it stands: what the next tick does, and why.
public struct RolloutGateInfo: Codable, Sendable, Equatable {
    /// `advance`, `wait` or `halt`.
    public var decision: String
    /// The decision in words: `waiting: reports from 1 of 3 networks (reports.gateNetworks); 12 of 3 reports`.
    public var verdict: String
    /// Networks whose installs reported an outcome since the step began, and how many the gate
    /// needs.
    public var networks: Int
    public var minNetworks: Int
    /// The setting that asks for `minNetworks`: `reports.gateNetworks`, or `the rollout's --min-networks`.
    public var minNetworksSetting: String

    public init(decision: String, verdict: String, networks: Int, minNetworks: Int, minNetworksSetting: String) {
        self.decision = decision
        self.verdict = verdict
        self.networks = networks
        self.minNetworks = minNetworks
        self.minNetworksSetting = minNetworksSetting
    }
}

/// `GET /v1/rollouts`: each channel's newest rollout, the live ones first.
public struct RolloutList: Codable, Sendable, Equatable {
    public var rollouts: [RolloutInfo]

    public init(rollouts: [RolloutInfo]) {
        self.rollouts = rollouts
    }
}

/// Installs that reported each kind, each counted once.
public struct ReportTotals: Codable, Sendable, Equatable {
    public var applied: Int64
    public var failed: Int64
    public var healthy: Int64

    public init(applied: Int64, failed: Int64, healthy: Int64) {
        self.applied = applied
        self.failed = failed
        self.healthy = healthy
    }
}
