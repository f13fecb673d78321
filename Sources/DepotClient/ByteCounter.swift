import Synchronization

/// A running total shared with a download's delegate queue.
final class ByteCounter: Sendable {
    private let total = Mutex<Int64>(0)

    func add(_ count: Int64) -> Int64 {
        total.withLock {
            $0 += count
            return $0
        }
    }
}
