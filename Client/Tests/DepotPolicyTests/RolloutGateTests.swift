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

    static func plan(minNetworks: Int?) -> RolloutPlan {
        RolloutPlan(checkedSteps: [10, 50, 100], everySeconds: 60, maxFailureRate: 0.02, minReports: 3, autoRollback: true, minNetworks: minNetworks)
    }

    /// What the gate says, word for word, against a server asking 3 networks: a wait names
    /// what is missing and the setting that asks for it; a rollout's own minimum replaces the
    /// server's, for advancing and for halting alike (the trade-off SECURITY.md states).
    static let verdictCases: [(name: String, plan: RolloutPlan, elapsed: Int64, evidence: GateEvidence, verdict: String)] = [
        (
            "one network, the server's 3: waits, naming reports.gateNetworks", plan(minNetworks: nil), 60,
            evidence(.init(applied: 12), networks: 1), "waiting: reports from 1 of 3 networks (reports.gateNetworks); 12 of 3 reports"
        ),
        (
            "one network, the rollout's 1: advances", plan(minNetworks: 1), 60, evidence(.init(applied: 12), networks: 1),
            "advancing: the gate held: 0 of 12 reports failed (0%, limit 2%)"
        ),
        (
            "one network's failures, the rollout's 1: halts", plan(minNetworks: 1), 1, evidence(.init(applied: 2, failed: 2), networks: 1),
            "halting: the gate failed: 2 of 4 reports failed (50%, limit 2%), from 1 network"
        ),
        (
            "time not up: says what the gate will lack", plan(minNetworks: nil), 59, evidence(.init(applied: 1), networks: 1),
            "waiting: the step lasts until Thu, 01 Jan 1970 00:17:40 GMT; so far 1 of 3 reports, from 1 of 3 networks (reports.gateNetworks)"
        ),
        (
            "too few reports, the rollout's 2", plan(minNetworks: 2), 60, evidence(.init(applied: 1), networks: 1),
            "waiting: 1 of 3 reports, from 1 of 2 networks (the rollout's --min-networks)"
        ),
        (
            "failures from too few networks to halt", plan(minNetworks: nil), 60, evidence(.init(applied: 1, failed: 3), networks: 2, failing: 1),
            "waiting: 3 of 4 reports failed (75%, limit 2%), from 1 of the 3 networks a halt needs (reports.gateNetworks)"
        ),
    ]

    @Test(
        "the gate's verdict says what it waits for, in words, and a rollout's own minimum of networks replaces the server's",
        arguments: 0..<verdictCases.count
    )
    func verdict(index: Int) {
        let row = Self.verdictCases[index]
        let decision = RolloutGate.decide(plan: row.plan, stepStartedAt: 1000, now: 1000 + row.elapsed, evidence: row.evidence, minNetworks: 3)
        #expect(decision.verdict == row.verdict, "\(row.name)")
    }

    @Test("a verdict's kind changes with what the gate waits for, not with each report: the log says it once")
    func verdictKind() {
        let plan = Self.plan(minNetworks: nil)
        let decide = { (elapsed: Int64, applied: Int64) in
            RolloutGate.decide(
                plan: plan,
                stepStartedAt: 1000,
                now: 1000 + elapsed,
                evidence: Self.evidence(.init(applied: applied), networks: 1),
                minNetworks: 3
            )
        }
        #expect(decide(60, 12).kind == decide(61, 13).kind)
        #expect(decide(60, 12).kind == "wait for networks")
        #expect(decide(59, 12).kind == "wait for time")
        #expect(decide(60, 1).kind == "wait for reports")
    }

    @Test("a rate is written as a percentage with at most one decimal", arguments: [(0.025, "2.5%"), (0.02, "2%"), (0, "0%"), (1, "100%")])
    func percent(rate: Double, written: String) {
        #expect(RolloutGate.percent(rate) == written)
    }
}
