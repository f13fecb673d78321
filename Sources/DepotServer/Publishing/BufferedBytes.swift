import Prometheus
import Synchronization

/// The bytes of stored files a worker holds in memory, counted where its buffers are made: what
/// shows that its memory follows a bound and not a file's size (``VariantMaker``:
/// `depot_variant_buffered_bytes`, and tests).
final class BufferedBytes: Sendable {
    private struct Level {
        var now = 0
        var most = 0
    }

    private let level = Mutex(Level())
    private let gauge: Gauge?

    /// A count that also sets `gauge`, if any, to the bytes held now.
    init(gauge: Gauge? = nil) {
        self.gauge = gauge
    }

    /// The bytes held now.
    var now: Int { level.withLock { $0.now } }

    /// The most bytes ever held at once.
    var most: Int { level.withLock { $0.most } }

    /// `body`'s result, `count` bytes counted as held while it runs (it makes and drops them).
    func holding<T>(_ count: Int, _ body: () throws -> T) rethrows -> T {
        change(by: count)
        defer { change(by: -count) }
        return try body()
    }

    private func change(by count: Int) {
        let now = level.withLock { level in
            level.now += count
            level.most = max(level.most, level.now)
            return level.now
        }
        gauge?.set(Int64(now))
    }
}
