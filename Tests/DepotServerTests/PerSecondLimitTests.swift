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

    @Test("it holds one second's keys at most")
    func bounded() {
        var rule = PerSecondLimit(limit: 1)
        for key in 0..<1000 { _ = rule.admits("\(key)", now: 1) }
        #expect(rule.keys == 1000)
        _ = rule.admits("x", now: 2)
        #expect(rule.keys == 1)
    }
}
