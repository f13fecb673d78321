import DepotAPI
import DepotHTTP
import DepotPolicy

/// The rollouts section: each channel's newest rollout as a card (an ended one folded to a
/// line), and the form that starts one.
extension DashboardPage {
    /// The start form's values: the plan the server takes for absent fields.
    static var standardPlan: [String: Any] {
        let plan = RolloutPlan.standard
        return [
            "steps": plan.steps.map(String.init).joined(separator: ","), "every": DurationText.text(seconds: plan.everySeconds),
            "maxFailurePercent": plan.maxFailureRate * 100, "minReports": plan.minReports, "autoRollback": plan.autoRollback,
        ]
    }

    /// What the rollouts section shows of one rollout: its steps, the gate's last decision, and
    /// a chart of adoption and failures a minute with its text beside it.
    static func rollout(_ rollout: RolloutView) -> [String: Any] {
        let since = rollout.sinceStep
        let width = 6
        let highest = max(1, rollout.minutes.map { $0.counts.outcomes }.max() ?? 0)
        var applied: Int64 = 0
        var failed: Int64 = 0
        let bars = rollout.minutes.enumerated().map { index, minute in
            applied += minute.counts.applied
            failed += minute.counts.failed
            let good = Int(minute.counts.applied * 100 / highest)
            let bad = Int(minute.counts.failed * 100 / highest)
            return ["x": index * width, "width": width - 1, "goodY": 100 - good, "good": good, "badY": 100 - good - bad, "bad": bad]
        }
        let total = ReportCounts(applied: applied, failed: failed)
        let described =
            rollout.minutes.isEmpty
            ? "No install has reported about release #\(rollout.release ?? 0) yet"
            : "Reports a minute since the rollout began: \(applied) installs applied release #\(rollout.release ?? 0) and \(failed) failed "
                + "(\(RolloutGate.percent(total.failureRate)) over the whole rollout)"
        return [
            "channel": rollout.channel, "release": rollout.release.map { "#\($0)" } ?? "(removed)",
            "base": rollout.base.map { "#\($0)" } ?? "(removed)",
            "state": rollout.channelMovedTo.map { "completed at 100%, then rolled back: the channel is on #\($0)" }
                ?? "\(rollout.state) at \(rollout.percent)%",
            "live": rollout.isLive, "confirmTarget": "the rollout of release \(rollout.release.map { "#\($0)" } ?? "?") on \(rollout.channel)",
            "stepStarted": HTTPDate(secondsSince1970: rollout.stepStartedAt).imfFixdate,
            // The next step's time, promised only where the gate would pass were it now: else the
            // card says what the gate waits for.
            "nextStep": rollout.nextStepAt.map { at in
                let time = HTTPDate(secondsSince1970: at).imfFixdate
                return rollout.waitsOnlyForTime
                    ? "\(time), if the reports keep passing the gate" : "not before \(time), and only once the gate passes"
            } ?? "",
            "hasNextStep": rollout.nextStepAt != nil,
            "gateNow": rollout.gate ?? "", "hasGate": rollout.gate != nil,
            "received": since.outcomes, "needed": rollout.minReports,
            "networks": "\(rollout.networks) of \(rollout.minNetworks) needed (\(rollout.minNetworksSetting))",
            "summary":
                "\(rollout.channel): release \(rollout.release.map { "#\($0)" } ?? "(removed)") over \(rollout.base.map { "#\($0)" } ?? "(removed)")",
            "reasons": rollout.failureReasons.map { ["reason": $0.reason, "installs": $0.installs] as [String: Any] },
            "hasReasons": !rollout.failureReasons.isEmpty,
            "paused": rollout.state == "paused" || rollout.state == "halted", "running": rollout.state == "running",
            "steps": rollout.steps.map { ["percent": $0.percent, "status": $0.status] }, "reason": rollout.reason,
            "gate": "each step lasts at least \(duration(rollout.everySeconds)), then needs \(RolloutGate.counted(rollout.minReports, "report")) "
                + "from \(RolloutGate.counted(Int64(rollout.minNetworks), "network")) (\(rollout.minNetworksSetting)) with at most "
                + "\(RolloutGate.percent(rollout.maxFailureRate)) failed"
                + (rollout.autoRollback ? "; a failed gate rolls back" : "; a failed gate halts"),
            "applied": since.applied, "failed": since.failed, "healthy": since.healthy, "failureRate": RolloutGate.percent(since.failureRate),
            "chartWidth": max(1, rollout.minutes.count) * width, "bars": bars, "described": described,
            "minutes": rollout.minutes.map { minute in
                [
                    "clock": clock(minute.start), "applied": minute.counts.applied, "failed": minute.counts.failed,
                    "healthy": minute.counts.healthy, "rate": RolloutGate.percent(minute.counts.failureRate),
                ] as [String: Any]
            },
            "hasMinutes": !rollout.minutes.isEmpty,
        ]
    }

    /// Seconds as the largest whole unit: "1 h", "90 s".
    static func duration(_ seconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("min", 60)] where seconds % size == 0 { return "\(seconds / size) \(unit)" }
        return "\(seconds) s"
    }
}
