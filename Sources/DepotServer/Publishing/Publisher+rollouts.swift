import DepotAPI
import DepotConnection
import DepotHTTP
import DepotPolicy
import DepotStore
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Staged rollouts through the one sequence of a change (``Publisher/change(_:doing:newContent:_:)``):
/// every move re-signs the channel's document at once; a completion also refreshes the caches of
/// the paths it changed.
extension Publisher {
    /// Starts a rollout of `permit`'s channel from `request`, with a fresh random salt; its gate
    /// needs `gateNetworks` networks (``ReportConfiguration/gateNetworks``) unless the request
    /// gives its own.
    func startRollout(_ request: RolloutRequest, gateNetworks: Int, permit: Permit, logger: Logger) async throws -> RolloutInfo {
        let channel = permit.channel
        var everySeconds = request.everySeconds
        if let every = request.every {
            guard request.everySeconds == nil else { throw PublisherError(.invalid, "Give every or everySeconds, not both") }
            guard let seconds = DurationText.seconds(every), seconds >= 1, seconds < Double(Int64.max) else {
                throw PublisherError(.invalid, "every: \"\(every.prefix(40))\" is not a duration (90, 15m, 1h, 2d)")
            }
            everySeconds = Int64(seconds)
        }
        let plan = try await refusingBadChanges {
            let standard = RolloutPlan.standard
            return try RolloutPlan(
                steps: request.steps ?? standard.steps,
                everySeconds: everySeconds ?? standard.everySeconds,
                maxFailureRate: request.maxFailureRate ?? standard.maxFailureRate,
                minReports: request.minReports ?? standard.minReports,
                autoRollback: request.autoRollback ?? standard.autoRollback,
                minNetworks: request.minNetworks
            )
        }
        var generator = SystemRandomNumberGenerator()
        let salt = Hex.string((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let rollout = try await change(permit, doing: .rollouts, newContent: []) {
            let rollout = try await rollouts.startRollout(request.release, to: channel, plan: plan, salt: salt, now: now())
            return (
                rollout, [String](),
                AuditNote(
                    "rollout-start",
                    release: rollout.releaseNumber,
                    detail: "at \(rollout.percent)%" + (rollout.plan.minNetworks.map { ", --min-networks \($0)" } ?? "")
                )
            )
        }
        logger.info(
            "Rollout started",
            metadata: [
                "channel": "\(channel)", "release": "\(rollout.releaseNumber ?? 0)", "percent": "\(rollout.percent)",
                "minNetworks": "\(rollout.plan.gateNetworks(serverMinimum: gateNetworks).count)",
            ]
        )
        return try await info(rollout, gateNetworks: gateNetworks)
    }

    /// The newest rollout of `channel`, its gate weighed with `gateNetworks` as the server's
    /// minimum of networks.
    func rollout(of channel: String, gateNetworks: Int) async throws -> RolloutInfo {
        guard let rollout = try await rollouts.rollout(of: channel) else {
            throw PublisherError(.notFound, "\(channel) has had no rollout")
        }
        return try await info(rollout, gateNetworks: gateNetworks)
    }

    /// Each channel's newest rollout: the live ones first, then by channel.
    func rollouts(gateNetworks: Int) async throws -> RolloutList {
        var rollouts: [RolloutInfo] = []
        for channel in try await releases.channels() {
            guard let rollout = try await self.rollouts.rollout(of: channel.name) else { continue }
            rollouts.append(try await info(rollout, gateNetworks: gateNetworks))
        }
        rollouts.sort { ($0.endedAt == nil ? 0 : 1, $0.channel) < ($1.endedAt == nil ? 0 : 1, $1.channel) }
        return RolloutList(rollouts: rollouts)
    }

    /// Pauses, resumes, halts or rolls back the live rollout of `permit`'s channel.
    func changeRollout(_ action: RolloutAction, gateNetworks: Int, permit: Permit, logger: Logger) async throws -> RolloutInfo {
        let channel = permit.channel
        let rollout = try await change(permit, doing: .rollouts, newContent: []) {
            let now = now()
            let rollout: Rollout =
                switch action {
                case .pause: try await rollouts.changeRollout(of: channel, .pause, now: now)
                case .resume: try await rollouts.changeRollout(of: channel, .resume, now: now)
                case .halt: try await rollouts.changeRollout(of: channel, .halt, now: now)
                case .rollback: try await rollouts.rollBackRollout(of: channel, now: now)
                }
            return (rollout, [String](), AuditNote("rollout-\(action.rawValue)", release: rollout.releaseNumber, detail: "at \(rollout.percent)%"))
        }
        logger.info(
            "Rollout \(action.rawValue)",
            metadata: ["channel": "\(channel)", "state": "\(rollout.state.rawValue)", "percent": "\(rollout.percent)"]
        )
        return try await info(rollout, gateNetworks: gateNetworks)
    }

    /// One tick of the scheduler at `now`: each running rollout's gate, on the reports since its
    /// step began (from at least `minNetworks` networks, ``ReportConfiguration/gateNetworks``,
    /// unless the rollout has its own), and its decision carried out. `verdicts` holds each
    /// rollout's last decision (``RolloutGate/Decision/kind``): a rollout's verdict is logged
    /// when it changes, not every tick. Returns the moves made.
    @discardableResult
    func tickRollouts(
        now: HTTPDate,
        minNetworks: Int,
        verdicts: GateVerdicts = GateVerdicts(),
        logger: Logger
    ) async throws -> [RolloutStore.RolloutMove] {
        var moves: [RolloutStore.RolloutMove] = []
        let running = try await rollouts.runningRollouts()
        verdicts.keep(running.map(\.id))
        for rollout in running {
            guard
                let decision = rollout.gate(
                    evidence: try await reports.gateEvidence(of: rollout),
                    serverMinNetworks: minNetworks,
                    now: now.secondsSince1970
                )
            else { continue }
            if verdicts.changed(rollout.id, to: decision.kind) {
                logger.info(
                    "Rollout gate",
                    metadata: [
                        "channel": "\(rollout.channel)", "release": "\(rollout.releaseNumber ?? 0)", "percent": "\(rollout.percent)",
                        "verdict": "\(decision.verdict)",
                    ]
                )
            }
            // Most ticks wait: no write transaction for them.
            if case .wait = decision { continue }
            guard
                let move = try await change(
                    .rolloutGate(channel: rollout.channel),
                    doing: .rollouts,
                    newContent: [],
                    {
                        guard let applied = try await rollouts.applyGate(decision, to: rollout, now: now) else {
                            return (RolloutStore.RolloutMove?.none, nil, nil)
                        }
                        let note = AuditNote(applied.move.auditAction, release: rollout.releaseNumber, detail: applied.move.auditDetail(decision))
                        return (applied.move, applied.changedPaths, note)
                    }
                )
            else { continue }
            moves.append(move)
            logger.notice(
                "Rollout moved",
                metadata: ["channel": "\(rollout.channel)", "release": "\(rollout.releaseNumber ?? 0)", "move": "\(move)", "decision": "\(decision)"]
            )
        }
        return moves
    }

    private func info(_ rollout: Rollout, gateNetworks: Int) async throws -> RolloutInfo {
        let evidence = try await reports.gateEvidence(of: rollout)
        let counts = evidence.counts
        let networks = rollout.plan.gateNetworks(serverMinimum: gateNetworks)
        let gate = rollout.gate(evidence: evidence, serverMinNetworks: gateNetworks, now: now().secondsSince1970).map { decision in
            RolloutGateInfo(
                decision: decision.name,
                verdict: decision.verdict,
                networks: evidence.networks,
                minNetworks: networks.count,
                minNetworksSetting: networks.setting
            )
        }
        return RolloutInfo(
            channel: rollout.channel,
            release: rollout.release,
            releaseNumber: rollout.releaseNumber,
            base: rollout.base,
            baseNumber: rollout.baseNumber,
            state: rollout.state.rawValue,
            percent: rollout.percent,
            steps: rollout.plan.steps,
            step: rollout.step,
            everySeconds: rollout.plan.everySeconds,
            maxFailureRate: rollout.plan.maxFailureRate,
            minReports: rollout.plan.minReports,
            autoRollback: rollout.plan.autoRollback,
            startedAt: HTTPDate(secondsSince1970: rollout.startedAt).imfFixdate,
            stepStartedAt: HTTPDate(secondsSince1970: rollout.stepStartedAt).imfFixdate,
            endedAt: rollout.endedAt.map { HTTPDate(secondsSince1970: $0).imfFixdate },
            reason: rollout.reason,
            reports: ReportTotals(applied: counts.applied, failed: counts.failed, healthy: counts.healthy),
            minNetworks: rollout.plan.minNetworks,
            gate: gate
        )
    }
}

extension RolloutStore.RolloutMove {
    /// Its action in the audit trail.
    var auditAction: String {
        switch self {
        case .advanced: "gate-advance"
        case .completed: "gate-complete"
        case .halted: "gate-halt"
        case .rolledBack: "gate-rollback"
        }
    }

    /// The percentage reached, and the gate's reason.
    func auditDetail(_ decision: RolloutGate.Decision) -> String {
        let reason = decision.reason
        guard case .advanced(let percent) = self else { return reason }
        return "to \(percent)%: \(reason)"
    }
}

/// Each running rollout's last gate decision (``RolloutGate/Decision/kind``), kept by the
/// scheduler between ticks so the log says a verdict once per change. In memory: after a
/// restart each verdict is said once again.
final class GateVerdicts: Sendable {
    private let last = Mutex<[Int64: String]>([:])

    init() {}

    /// Forgets the rollouts that no longer run.
    func keep(_ running: [Int64]) {
        let running = Set(running)
        last.withLock { $0 = $0.filter { running.contains($0.key) } }
    }

    /// Records `kind` for rollout `id`; whether it differs from the last one recorded.
    func changed(_ id: Int64, to kind: String) -> Bool {
        last.withLock { last in
            defer { last[id] = kind }
            return last[id] != kind
        }
    }
}
