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
    /// From the rollout's start, oldest first: installs that applied the release, failed and
    /// said it was healthy, each counted in the minute of its first report of that kind.
    let minutes: [Minute]

    struct Minute: Sendable, Encodable {
        /// Seconds since 1970 of the minute's start.
        let start: Int64
        let counts: ReportCounts
    }

    init(_ rollout: Rollout, sinceStep: ReportCounts, history: [(minute: Int64, counts: ReportCounts)]) {
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
        self.sinceStep = sinceStep
        minutes = history.map { Minute(start: $0.minute * 60, counts: $0.counts) }
    }
}
