import NIOPosix
import ServiceLifecycle
import Synchronization

/// Work anyone can trigger with a request (a page's pack, a patch between two versions), done
/// once, kept, bounded and kept away from serving.
///
/// - **Once:** concurrent callers for one key share one computation (single flight), and its
///   result is *kept* by the caller's `keep` step (a blob and a catalog record), which `kept`
///   reads back: before admission, and again when the computation starts, so a key made by an
///   earlier flight is never made twice.
/// - **Bounded:** at most ``ComputeLimits/maximumConcurrent`` computations run, and at most
///   ``ComputeLimits/maximumQueued`` more keys wait; past that a caller gets ``Answer/busy`` at
///   once (the route answers 503 with `Retry-After`), and nothing is computed for it.
/// - **Away from serving:** the blocking step runs on ``threads``, a pool of its own (never
///   `NIOThreadPool.singleton`, which reads the file bodies every answer streams).
///
/// A service: its `run` carries the computations, each a child task of it (structured: none is
/// detached), and at shutdown answers the keys still waiting with ``Answer/busy`` and stops the
/// threads. A caller whose task is cancelled stops waiting; the computation goes on for the
/// others, and its result is kept. A failure is thrown to every caller of the flight, and not
/// kept: the next request tries again.
final class ComputeOnce<Key: Hashable & Sendable, Value: Sendable>: Service, Sendable {
    /// What a caller gets.
    enum Answer: Sendable {
        /// The value: kept before, or computed (once, for every caller of the flight).
        case value(Value)
        /// Too many keys are computing or waiting, or the server is stopping: come back later.
        case busy
    }

    let limits: ComputeLimits
    /// The threads computations run their blocking step on, started with this value and stopped
    /// at the end of ``run()``. An owner whose other work must share them (so that one encoder
    /// at a time holds a large file in memory) runs it here too.
    let threads: NIOThreadPool

    private typealias Waiter = CheckedContinuation<Answer, any Error>

    /// One key's computation: the job (the first caller's steps) and who waits for it.
    private struct Flight {
        let job: @Sendable () async throws -> Value
        var waiters: [Int: Waiter]
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var closed = false
        var nextWaiter = 0
    }

    /// What became of a caller at admission.
    private enum Admission { case joined, queued, busy, cancelled }

    private let state = Mutex(State())
    private let queue: AsyncStream<Key>
    private let queueInput: AsyncStream<Key>.Continuation

    init(limits: ComputeLimits) {
        self.limits = limits
        threads = NIOThreadPool(numberOfThreads: limits.maximumConcurrent)
        threads.start()
        (queue, queueInput) = AsyncStream.makeStream(of: Key.self)
    }

    /// Keys computing or waiting to.
    var pending: Int { state.withLock { $0.flights.count } }

    /// Callers waiting for a value, over all keys.
    var waiting: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// The value for `key`: what `kept` reads, else computed once for every concurrent caller
    /// of `key`, unless too many keys are computing or waiting (``Answer/busy``).
    ///
    /// - Parameters:
    ///   - kept: Reads the kept result, if any: before admission, and again when the flight
    ///     starts.
    ///   - compute: The blocking work, run on ``threads``.
    ///   - keep: Stores what `compute` made (a blob, a catalog record) and returns the value.
    ///   A caller that joins a flight under way waits for its steps; its own are not used.
    func value<Made: Sendable>(
        for key: Key,
        kept: @escaping @Sendable () async throws -> Value?,
        compute: @escaping @Sendable () throws -> Made,
        keep: @escaping @Sendable (Made) async throws -> Value
    ) async throws -> Answer {
        if let value = try await kept() { return .value(value) }
        let (threads, whileComputing) = (threads, limits.whileComputing)
        return try await wait(for: key) {
            if let value = try await kept() { return value }
            let made = try await threads.runIfActive {
                whileComputing?()
                return try compute()
            }
            return try await keep(made)
        }
    }

    /// Joins the flight of `key`, or admits one that runs `job`, and waits for its value.
    private func wait(for key: Key, job: @escaping @Sendable () async throws -> Value) async throws -> Answer {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let admitted = limits.maximumConcurrent + limits.maximumQueued
        // A stopping server's requests are answered busy at once: its graceful stop waits for
        // them, and they would otherwise wait for every queued computation (``close()``).
        return try await withGracefulShutdownHandler {
            try await waitAdmitted(id: id, key: key, admitted: admitted, job: job)
        } onGracefulShutdown: {
            self.close()
        }
    }

    private func waitAdmitted(id: Int, key: Key, admitted: Int, job: @escaping @Sendable () async throws -> Value) async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let admission = state.withLock { state -> Admission in
                    // Checked under the lock the cancellation handler takes: either it finds
                    // this waiter, or this sees the cancellation.
                    if Task.isCancelled { return .cancelled }
                    if state.closed { return .busy }
                    if state.flights[key] != nil {
                        state.flights[key]!.waiters[id] = waiter
                        return .joined
                    }
                    guard state.flights.count < admitted else { return .busy }
                    state.flights[key] = Flight(job: job, waiters: [id: waiter])
                    return .queued
                }
                switch admission {
                case .joined: break
                case .queued: queueInput.yield(key)
                case .busy: waiter.resume(returning: .busy)
                case .cancelled: waiter.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.flights[key]?.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await key in queue {
                    if Task.isCancelled || state.withLock({ $0.closed }) { break }
                    if running == limits.maximumConcurrent {
                        await group.next()
                        running -= 1
                        // Closed while this key waited for a thread: dropped with the queue.
                        if state.withLock({ $0.closed }) { break }
                    }
                    group.addTask { await self.fly(key) }
                    running += 1
                }
            }
        } onGracefulShutdown: {
            self.close()
        }
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.flights = [:] }
            return state.flights.values.flatMap { $0.waiters.values }
        }
        for waiter in waiting { waiter.resume(returning: .busy) }
        try await threads.shutdownGracefully()
    }

    /// Takes no more keys and answers everyone waiting with ``Answer/busy``: the server is
    /// stopping. Computations under way finish, and their results are kept; queued ones are
    /// dropped. Called when the service or a waiting request hears of a graceful shutdown.
    func close() {
        let waiting = state.withLock { state -> [Waiter] in
            state.closed = true
            var waiting: [Waiter] = []
            for key in Array(state.flights.keys) {
                waiting += state.flights[key]!.waiters.values
                state.flights[key]!.waiters = [:]
            }
            return waiting
        }
        queueInput.finish()
        for waiter in waiting { waiter.resume(returning: .busy) }
    }

    /// Runs the flight of `key` and answers everyone waiting for it.
    private func fly(_ key: Key) async {
        guard let job = state.withLock({ $0.flights[key]?.job }) else { return }
        let result: Result<Value, any Error>
        do {
            result = .success(try await job())
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { $0.flights.removeValue(forKey: key).map { Array($0.waiters.values) } ?? [] }
        for waiter in waiters { waiter.resume(with: result.map(Answer.value)) }
    }
}
