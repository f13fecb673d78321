import DepotConcurrency

/// A running total shared with a download's delegate queue.
final class ByteCounter: Sendable {
    private let running = Locked<Int64>(0)

    /// The total so far.
    var total: Int64 { running.withLock { $0 } }

    func add(_ count: Int64) -> Int64 {
        running.withLock {
            $0 += count
            return $0
        }
    }
}
