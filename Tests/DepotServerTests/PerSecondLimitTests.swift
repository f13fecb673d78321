import Testing

@testable import DepotServer

/// The reports' rate limit as a pure rule: requests in made-up seconds, no clock, no socket.
@Suite("Per-second limit")
struct PerSecondLimitTests {
    /// A request: from `key` in second `second`, and whether it is admitted.
    typealias Step = (key: String, second: Int64, admitted: Bool)

    @Test(
        "each key gets `limit` requests a second; a new second starts every key afresh",
        arguments: [
            ("the limit, then a refusal", 2, [("a", 0, true), ("a", 0, true), ("a", 0, false), ("a", 0, false)]),
            ("keys are counted apart", 1, [("a", 5, true), ("b", 5, true), ("a", 5, false), ("b", 5, false)]),
            ("the next second admits again", 1, [("a", 5, true), ("a", 5, false), ("a", 6, true), ("a", 6, false)]),
            ("a clock that goes back starts a window too", 1, [("a", 9, true), ("a", 8, true), ("a", 8, false)]),
            ("a refused request still counts", 1, [("a", 1, true), ("a", 1, false), ("a", 1, false), ("b", 1, true)]),
        ] as [(String, Int, [Step])]
    )
    func table(name: String, limit: Int, steps: [Step]) {
        var rule = PerSecondLimit(limit: limit)
        for (index, step) in steps.enumerated() {
            #expect(rule.admits(step.key, now: step.second) == step.admitted, "\(name): request \(index + 1)")
        }
    }

    @Test(
        "keyed as reports are (ReportNetwork.rateKey): 60 addresses of one IPv6 /64 share one limit; another /64, or an IPv4 neighbour, has its own"
    )
    func networks() {
        var rule = PerSecondLimit(limit: 20)
        let subnet = (1...60).filter { rule.admits(ReportNetwork.rateKey(of: "2001:db8:0:1::\(String($0, radix: 16))"), now: 7) }
        #expect(subnet.count == 20)
        let others = [
            ("[2001:db8:0:2::1]:40001", 7), ("[2001:db8:0:1:ffff::1]:40001", 7), ("198.51.100.8", 7), ("198.51.100.9:40001", 7),
            ("2001:db8:0:1::1", 8),
        ].map { rule.admits(ReportNetwork.rateKey(of: $0.0), now: Int64($0.1)) }
        // Another /64; the first /64 again; two IPv4 addresses, one with a port; the first /64 in a new second.
        #expect(others == [true, false, true, true, true])
    }

    @Test("it holds one second's keys at most")
    func bounded() {
        var rule = PerSecondLimit(limit: 1)
        for key in 0..<1000 { _ = rule.admits("\(key)", now: 1) }
        #expect(rule.keys == 1000)
        _ = rule.admits("x", now: 2)
        #expect(rule.keys == 1)
    }
}
