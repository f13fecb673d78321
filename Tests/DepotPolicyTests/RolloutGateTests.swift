import DepotPolicy
import Testing

/// The gate of a running rollout as a table (``RolloutGate``): pure, built without the catalog.
@Suite("The rollout gate")
struct RolloutGateTests {
    static func plan(rate: Double = 0.02, minReports: Int64 = 200) -> RolloutPlan {
        RolloutPlan(checkedSteps: [10, 50, 100], everySeconds: 60, maxFailureRate: rate, minReports: minReports, autoRollback: true)
    }

    /// Evidence from `networks` networks (failures, when there are any, from all of them).
    static func evidence(_ counts: ReportCounts, networks: Int = 3, failing: Int? = nil) -> GateEvidence {
        GateEvidence(counts: counts, networks: networks, failingNetworks: failing ?? (counts.failed > 0 ? networks : 0))
    }

    static let gateCases: [(name: String, plan: RolloutPlan, elapsed: Int64, evidence: GateEvidence, expected: String)] = [
        ("time up, enough reports, none failed", plan(), 60, evidence(.init(applied: 200)), "advance"),
        ("time up, failure rate at the limit", plan(), 60, evidence(.init(applied: 196, failed: 4)), "advance"),
        ("time up, failure rate over the limit", plan(), 60, evidence(.init(applied: 195, failed: 5)), "halt"),
        ("time up, too few reports", plan(), 60, evidence(.init(applied: 199)), "wait"),
        ("time not up, enough good reports", plan(), 59, evidence(.init(applied: 1000)), "wait"),
        ("time not up, 30% failed of enough: halts at once", plan(), 1, evidence(.init(applied: 140, failed: 60)), "halt"),
        ("time not up, 30% failed of too few: waits for evidence", plan(), 1, evidence(.init(applied: 14, failed: 6)), "wait"),
        ("healthy reports weigh nothing", plan(), 60, evidence(.init(applied: 10, healthy: 500)), "wait"),
        ("no minimum: advances on time with no report", plan(minReports: 0), 60, evidence(.init(), networks: 0), "advance"),
        ("no minimum: one failure from each of 3 networks halts", plan(minReports: 0), 1, evidence(.init(failed: 3)), "halt"),
        ("a zero limit: any failure halts", plan(rate: 0, minReports: 10), 60, evidence(.init(applied: 99, failed: 1)), "halt"),
        // One network (an address, or a /24 of them) cannot move a rollout, whatever it invents.
        ("all failures from one network: no halt", plan(), 1, evidence(.init(failed: 5000), networks: 1), "wait"),
        ("all failures from two networks of the three needed: no halt", plan(), 60, evidence(.init(applied: 500, failed: 500), failing: 2), "wait"),
        ("enough reports, all from one network: no advance", plan(), 60, evidence(.init(applied: 5000), networks: 1), "wait"),
        // Failures over the limit from too few networks neither halt nor let the step advance:
        // the step waits, its reason says so, and a person decides.
        ("no minimum, one network's failure: no halt, no advance", plan(minReports: 0), 60, evidence(.init(failed: 1), networks: 1), "wait"),
        (
            "failures over the limit from one network, good reports from three: waits", plan(), 60,
            evidence(.init(applied: 195, failed: 5), failing: 1), "wait"
        ),
    ]

    @Test("the gate advances, waits or halts", arguments: 0..<gateCases.count)
    func gate(index: Int) {
        let row = Self.gateCases[index]
        let decision = RolloutGate.decide(plan: row.plan, stepStartedAt: 1000, now: 1000 + row.elapsed, evidence: row.evidence, minNetworks: 3)
        let name: String =
            switch decision {
            case .advance: "advance"
            case .halt: "halt"
            case .wait: "wait"
            }
        #expect(name == row.expected, "\(row.name): \(decision)")
    }

    @Test("a rate is written as a percentage with at most one decimal", arguments: [(0.025, "2.5%"), (0.02, "2%"), (0, "0%"), (1, "100%")])
    func percent(rate: Double, written: String) {
        #expect(RolloutGate.percent(rate) == written)
    }
}
