import Synchronization

/// When each install polls, in simulated time: install `i` at `interval × (i + ½) / count`
/// into each round of `interval` simulated seconds (ids, versions and networks are drawn at
/// random, so the order says nothing else), a simulated second being `1 / scale` real seconds.
/// Workers take the installs that are due, in order.
final class Schedule: Sendable {
    let count: Int
    let interval: Double
    let scale: Double
    /// When simulated time began: ``begin()`` sets it once the fleet is seeded.
    private let started: Mutex<ContinuousClock.Instant>

    private struct Cursor {
        var round = 0
        var position = 0
        /// How far behind its due time the last install handed out was, simulated seconds.
        var lag = 0.0
        var skipped = 0
        /// Workers asleep until an install falls due: each is given its own, the first
        /// sleeping one the next, the second the one after, so that one install due wakes one
        /// worker, not all of them.
        var waiting = 0
    }

    private let cursor = Mutex(Cursor())

    init(count: Int, interval: Double, scale: Double) {
        self.count = count
        self.interval = interval
        self.scale = scale
        started = Mutex(.now)
    }

    /// Simulated seconds since the start.
    func simulated(_ instant: ContinuousClock.Instant = .now) -> Double {
        let elapsed = started.withLock { $0 }.duration(to: instant)
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) * scale
    }

    /// Real seconds since the start.
    func real(_ instant: ContinuousClock.Instant = .now) -> Double { simulated(instant) / scale }

    private func due(_ cursor: Cursor) -> Double {
        Double(cursor.round) * interval + interval * (Double(cursor.position) + 0.5) / Double(count)
    }

    /// Starts simulated time now: installs fall due from here, not from before the seed.
    func begin() { started.withLock { $0 = .now } }

    /// Hands install `index` back once its poll ended; under the lock that handed it out, so
    /// the next worker to take it sees every field this one wrote.
    func done(_ index: Int, busy: UnsafeMutableBufferPointer<Bool>) {
        cursor.withLock { _ in busy[index] = false }
    }

    /// What a worker does next: poll an install, or wait this many real seconds for the next.
    enum Next {
        case poll(Int)
        case wait(Double)
    }

    /// The next install due by now that is not still busy (``InstallTable/busy``, set here), or
    /// how long to wait; `wasWaiting`: the worker asking slept on the last answer.
    func next(busy: UnsafeMutableBufferPointer<Bool>, wasWaiting: Bool) -> Next {
        let now = simulated()
        return cursor.withLock { cursor in
            if wasWaiting { cursor.waiting -= 1 }
            while true {
                let due = due(cursor)
                guard due <= now else {
                    let spacing = interval / Double(count)
                    let wait = min(0.05, (due - now + Double(cursor.waiting) * spacing) / scale)
                    cursor.waiting += 1
                    return .wait(wait)
                }
                let index = cursor.position
                cursor.lag = now - due
                cursor.position += 1
                if cursor.position == count { (cursor.round, cursor.position) = (cursor.round + 1, 0) }
                if busy[index] {
                    // Still on its last poll a whole interval later: it skips this one.
                    cursor.skipped += 1
                    continue
                }
                busy[index] = true
                return .poll(index)
            }
        }
    }

    /// How far behind the schedule the fleet is (simulated seconds), and polls skipped.
    var lag: (seconds: Double, skipped: Int) {
        cursor.withLock { ($0.lag, $0.skipped) }
    }
}
