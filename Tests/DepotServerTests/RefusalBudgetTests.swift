import Testing

@testable import DepotServer

/// ``RefusalBudget``: what one token (or `address`, every request naming none) makes the audit
/// trail store, and the log say, by being refused over and over.
@Suite("Refusal budget")
struct RefusalBudgetTests {
    @Test("60 refusals a minute are recorded, the first beyond is logged, the rest neither; each token and minute apart")
    func budget() {
        let budget = RefusalBudget(perMinute: 60)
        let minute = (0..<1_000).map { _ in budget.take("address", minute: 7) }
        #expect(minute.prefix(60).allSatisfy { $0 == .record })
        #expect(minute[60] == .firstOverBudget)
        #expect(minute.dropFirst(61).allSatisfy { $0 == .overBudget }, "one log line a minute, however many requests")
        #expect(budget.take("ci", minute: 7) == .record, "another token's budget is its own")
        #expect(budget.take("address", minute: 8) == .record, "a new minute, a new budget")
        #expect((0..<59).map { _ in budget.take("address", minute: 8) }.allSatisfy { $0 == .record })
        #expect(budget.take("address", minute: 8) == .firstOverBudget)
    }
}
