import Dispatch
import Synchronization
import Testing

@testable import DepotServer

/// ``ComputeOnce`` alone: computations held on a gate (a semaphore the test opens), never judged
/// by the wall clock.
@Suite("Compute once")
struct ComputeOnceTests {
    /// A computation's count and the gate it waits on.
    final class Work: Sendable {
        let computed = Atomic(0)
        let gate = DispatchSemaphore(value: 0)
        let failing: Bool

        init(failing: Bool = false) { self.failing = failing }

        struct Failure: Error, Equatable {}

        /// The blocking step: counts, then waits for the gate.
        func compute(_ value: Int) throws -> Int {
            computed.add(1, ordering: .relaxed)
            gate.wait()
            if failing { throw Failure() }
            return value
        }

        func open(_ count: Int = 1) { for _ in 0..<count { gate.signal() } }
    }

    typealias Once = ComputeOnce<String, Int>

    /// Runs `body` with `once` running as a service, then stops it.
    static func running<Result: Sendable>(_ once: Once, _ body: @Sendable () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await once.run()
                return nil
            }
            let result = try await body()
            group.cancelAll()
            while try await group.next() != nil {}
            return result
        }
    }

    static func ask(_ once: Once, _ key: String, _ work: Work, value: Int = 7, kept: Int? = nil) async throws -> Once.Answer {
        try await once.value(for: key, kept: { kept }, compute: { try work.compute(value) }, keep: { $0 })
    }

    /// Waits until `once` holds `waiters` callers in all.
    static func waitFor(_ once: Once, waiters: Int) async throws {
        while once.waiting < waiters { try await Task.sleep(for: .milliseconds(2)) }
    }

    static func value(_ answer: Once.Answer) -> Int? {
        if case .value(let value) = answer { return value }
        return nil
    }

    @Test("50 concurrent callers of one key share one computation and its value")
    func singleFlight() async throws {
        let once = Once(limits: ComputeLimits(maximumConcurrent: 2, maximumQueued: 0))
        let work = Work()
        let values = try await Self.running(once) {
            try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<50 { group.addTask { Self.value(try await Self.ask(once, "page", work)) } }
                try await Self.waitFor(once, waiters: 50)
                work.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(values == Array(repeating: 7, count: 50))
        #expect(work.computed.load(ordering: .relaxed) == 1)
    }

    @Test("past maximumConcurrent computing and maximumQueued waiting, another key is busy at once; a kept value needs no admission")
    func bound() async throws {
        let once = Once(limits: ComputeLimits(maximumConcurrent: 1, maximumQueued: 1))
        let work = Work()
        let values = try await Self.running(once) {
            try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { Self.value(try await Self.ask(once, "a", work, value: 1)) }
                group.addTask { Self.value(try await Self.ask(once, "b", work, value: 2)) }
                try await Self.waitFor(once, waiters: 2)
                let third = try await Self.ask(once, "c", work, value: 3)
                #expect(Self.value(third) == nil, "busy")
                #expect(Self.value(try await Self.ask(once, "d", work, kept: 4)) == 4, "kept: answered without a computation")
                work.open(2)
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(Set(values.compactMap { $0 }) == [1, 2])
        #expect(work.computed.load(ordering: .relaxed) == 2)
    }

    @Test("a failure is thrown to every caller of the flight, and not kept: the next call computes again")
    func failureShared() async throws {
        let once = Once(limits: ComputeLimits(maximumConcurrent: 1, maximumQueued: 0))
        let work = Work(failing: true)
        let failures = try await Self.running(once) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        do {
                            _ = try await Self.ask(once, "page", work)
                            return false
                        } catch is Work.Failure {
                            return true
                        }
                    }
                }
                try await Self.waitFor(once, waiters: 5)
                work.open()
                let failures = try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                work.open()
                await #expect(throws: Work.Failure.self) { try await Self.ask(once, "page", work) }
                return failures
            }
        }
        #expect(failures == 5)
        #expect(work.computed.load(ordering: .relaxed) == 2)
    }

    @Test("a cancelled caller stops waiting; the computation goes on for the others")
    func cancelledWaiter() async throws {
        let once = Once(limits: ComputeLimits(maximumConcurrent: 1, maximumQueued: 0))
        let work = Work()
        try await Self.running(once) {
            let cancelled = Task { try await Self.ask(once, "page", work) }
            let other = Task { try await Self.ask(once, "page", work) }
            try await Self.waitFor(once, waiters: 2)
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(once.waiting == 1)
            work.open()
            #expect(Self.value(try await other.value) == 7)
        }
        #expect(work.computed.load(ordering: .relaxed) == 1)
    }

    @Test("at shutdown, keys still waiting are answered busy")
    func shutdown() async throws {
        let once = Once(limits: ComputeLimits(maximumConcurrent: 1, maximumQueued: 4))
        let work = Work()
        // Never run: the key waits in the queue until the service stops.
        let waiting = Task { try await Self.ask(once, "page", work) }
        try await Self.waitFor(once, waiters: 1)
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await once.run()
        }
        try await run.value
        #expect(Self.value(try await waiting.value) == nil)
        #expect(work.computed.load(ordering: .relaxed) == 0)
    }
}
