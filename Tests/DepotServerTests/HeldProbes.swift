import Synchronization

/// A readiness computation a test counts and can hold: each ``enter()`` counts one, and waits
/// while the test holds them (``hold()``) until it lets them go (``release()``). A gate, not a
/// sleep: however slow the machine, a held computation stays held.
final class HeldProbes: Sendable {
    private struct State {
        var count = 0
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Computations entered so far.
    var count: Int { state.withLock { $0.count } }

    /// Computations entered and held now.
    var heldNow: Int { state.withLock { $0.waiting.count } }

    /// Counts a computation; returns once it is not held.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goes = state.withLock { state in
                state.count += 1
                guard state.held else { return true }
                state.waiting.append(continuation)
                return false
            }
            if goes { continuation.resume() }
        }
    }

    /// Holds the computations that enter from now on.
    func hold() { state.withLock { $0.held = true } }

    /// Lets every held computation go, and those that enter later.
    func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
