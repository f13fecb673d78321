import DepotHTTP
import DepotPolicy
import DepotStore

/// A channel's newest rollout as the dashboard shows it: where it stands, each step, the gate's
/// last decision, and what installs reported about the release, minute by minute.
struct RolloutView: Sendable, Encodable {
    struct Step: Sendable, Encodable {
        let percent: Int
        /// `done`, `current` or `next`.
        let status: String
    }

    let channel: String
    let release: Int64?
    let base: Int64?
    let state: String
    let isLive: Bool
    let percent: Int
    let steps: [Step]
    /// The gate's last decision, in words.
    let reason: String
    let everySeconds: Int64
    let maxFailureRate: Double
    let minReports: Int64
    let autoRollback: Bool
    /// Since the current step began: what the gate weighs.
    let sinceStep: ReportCounts
    /// Networks whose installs reported an outcome since the step began; the networks the gate
    /// needs, and the setting that asks for them (`reports.gateNetworks` or the rollout's own).
    let networks: Int
    let minNetworks: Int
    let minNetworksSetting: String
    /// What the gate decides now, in words (``RolloutGate/Decision/verdict``): `nil` unless the
    /// rollout runs.
    let gate: String?
    /// Whether the gate waits for the step's time alone: reports enough, from networks enough,
    /// so far. Only then does the card say when the next step comes.
    let waitsOnlyForTime: Bool
    /// When the current step began, and when the next may begin (seconds since 1970): `nil`
    /// unless the rollout runs and has a next step.
    let stepStartedAt: Int64
    let nextStepAt: Int64?
    /// Why installs said the release failed, most given first.
    let failureReasons: [FailureReason]
    /// Where the channel points now, when it moved off the rollout's release after the rollout
    /// completed (a rollback): the card says so instead of "completed at 100%".
    let channelMovedTo: Int64?
    /// From the rollout's start, oldest first: installs that applied the release, failed and
    /// said it was healthy, each counted in the minute of its first report of that kind.
    let minutes: [Minute]

    struct FailureReason: Sendable, Encodable {
        let reason: String
        let installs: Int64
    }

    struct Minute: Sendable, Encodable {
        /// Seconds since 1970 of the minute's start.
        let start: Int64
        let counts: ReportCounts
    }

    init(
        _ rollout: Rollout,
        evidence: GateEvidence,
        serverMinNetworks: Int,
        now: Int64,
        history: [(minute: Int64, counts: ReportCounts)],
        failureReasons: [(reason: String, installs: Int64)] = [],
        channelRelease: ReleaseSummary? = nil
    ) {
        channel = rollout.channel
        release = rollout.releaseNumber
        base = rollout.baseNumber
        state = rollout.state.rawValue
        isLive = rollout.isLive
        percent = rollout.percent
        steps = rollout.plan.steps.enumerated().map { index, percent in
            let completed = rollout.state == .completed
            let status = completed || index < rollout.step ? "done" : index == rollout.step ? "current" : "next"
            return Step(percent: percent, status: status)
        }
        reason = rollout.reason
        everySeconds = rollout.plan.everySeconds
        maxFailureRate = rollout.plan.maxFailureRate
        minReports = rollout.plan.minReports
        autoRollback = rollout.plan.autoRollback
        sinceStep = evidence.counts
        networks = evidence.networks
        let needed = rollout.plan.gateNetworks(serverMinimum: serverMinNetworks)
        minNetworks = needed.count
        minNetworksSetting = needed.setting
        let decision = rollout.gate(evidence: evidence, serverMinNetworks: serverMinNetworks, now: now)
        gate = decision?.verdict
        // What the gate would decide were the step's time up now.
        let timeUp = rollout.gate(
            evidence: evidence,
            serverMinNetworks: serverMinNetworks,
            now: max(now, rollout.stepStartedAt + rollout.plan.everySeconds)
        )
        if case .advance = timeUp { waitsOnlyForTime = true } else { waitsOnlyForTime = false }
        stepStartedAt = rollout.stepStartedAt
        let hasNext = rollout.step < rollout.plan.steps.count - 1
        nextStepAt = rollout.state == .running && hasNext ? rollout.stepStartedAt + rollout.plan.everySeconds : nil
        self.failureReasons = failureReasons.map { FailureReason(reason: $0.reason, installs: $0.installs) }
        channelMovedTo = rollout.state == .completed && channelRelease.map { $0.id != rollout.release } == true ? channelRelease?.number : nil
        minutes = history.map { Minute(start: $0.minute * 60, counts: $0.counts) }
    }
}
