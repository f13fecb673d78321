/// What a sync may still receive: ``DepotClient/Configuration/maximumTransferBytes`` once its
/// plan, counted by signed sizes, was judged within it. A server that sends more than the plan
/// (a failed attempt and its fallback, a lying mirror) cannot take the sync past the budget:
/// a transfer that would is refused before it starts (``admits(_:)``) or stopped at the byte
/// that passes it (``receive(_:)``), and once one was, the sync starts no other.
struct TransferBudget: Sendable {
    /// The budget; `nil`: none.
    var limit: Int64?
    /// Bytes received since the budget was set.
    private(set) var received: Int64 = 0
    /// Whether a transfer was refused or stopped for the budget.
    private(set) var isSpent = false

    init(limit: Int64? = nil) {
        self.limit = limit
    }

    /// Counts `count` bytes received; `false` once they take the total past the budget.
    mutating func receive(_ count: Int64) -> Bool {
        received += count
        guard let limit, received > limit else { return true }
        isSpent = true
        return false
    }

    /// Whether a transfer of at most `bytes` more may start.
    mutating func admits(_ bytes: Int64) -> Bool {
        guard !isSpent else { return false }
        guard let limit, received + bytes > limit else { return true }
        isSpent = true
        return false
    }

    /// The error of a transfer the budget refused or stopped.
    var error: SyncError {
        SyncError.overBudget(moved: received, budget: limit ?? 0)
    }
}
