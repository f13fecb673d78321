/// When a ``DepotUpdater`` checks next: a pure rule, tested as a table.
///
/// After a success, the next check is ``interval`` away; after `n` failures in a row,
/// ``retryDelay`` × 2ⁿ⁻¹, at most ``maximumRetryDelay``. Either is then moved by up to
/// ± ``jitter`` of itself, so that a fleet that failed together does not retry together. The
/// time since the last successful check, when known, counts towards the interval: an app
/// launched for a few minutes a day still checks once an interval, not never.
struct UpdateSchedule: Sendable, Equatable {
    var interval: Duration
    var retryDelay: Duration
    var maximumRetryDelay: Duration
    /// The share of a delay it may move by, in 0...1.
    var jitter: Double

    /// The least a retry waits, whatever ``retryDelay`` says: doubling a zero (or negative)
    /// delay leaves it zero, and a server down would be asked again at once, forever.
    static let minimumRetryDelay = Duration.seconds(1)

    /// The delay before the next check after `failures` failures in a row (0: after a success,
    /// or at start), `draw` a number in -1...1 (the random source's), `elapsed` the time since
    /// the last successful check (`nil`: unknown), which shortens the interval, down to zero.
    func delay(afterFailures failures: Int, draw: Double, elapsed: Duration? = nil) -> Duration {
        var base = interval
        if failures > 0 {
            // Doubling stops at the cap, before it could overflow.
            let cap = max(maximumRetryDelay, Self.minimumRetryDelay)
            base = max(retryDelay, Self.minimumRetryDelay)
            for _ in 1..<failures where base < cap { base *= 2 }
            base = min(base, cap)
        }
        let share = max(0, min(1, jitter)) * max(-1, min(1, draw))
        let jittered = base + base * share
        guard failures == 0, let elapsed, elapsed > .zero else { return jittered }
        return max(.zero, jittered - elapsed)
    }
}
