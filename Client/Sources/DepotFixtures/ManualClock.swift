import DepotConcurrency

/// A clock whose time moves only when a test moves it (``advance(by:)``): what a component
/// decides by elapsed time (a transfer's minimum rate, a document's deadline) is then decided
/// when the test says, however fast or slow the machine runs it. Sleepers wake when the time
/// they wait for is reached, or with `CancellationError` when their task is cancelled.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        /// The time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let wake: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = Locked(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (wake: CheckedContinuation<Void, any Error>) in
                enum Outcome { case waits, due, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: wake)
                    return .waits
                }
                switch outcome {
                case .waits: break
                case .due: wake.resume()
                case .cancelled: wake.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.wake.resume(throwing: CancellationError())
        }
    }

    /// How many sleeps wait for a later time now.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time on by `step` and wakes every sleeper whose time has come.
    public func advance(by step: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: step)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.wake)
        }
        for wake in due { wake.resume() }
    }
}
