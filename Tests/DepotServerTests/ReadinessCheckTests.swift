import Synchronization
import Testing

@testable import DepotServer

/// `/readyz` is public: its work (a catalog read, a file made in the store) is done at most once
/// per interval, and probes arriving meanwhile share it (issue 57, defect 9).
@Suite("Readiness check")
struct ReadinessCheckTests {
    final class Probe: Sendable {
        let count = Mutex(0)
        let clock = Mutex(Duration.zero)
    }

    @Test("50 concurrent probes: one computation; the verdict is reused within the interval and computed again after it")
    func onceAnInterval() async throws {
        let probe = Probe()
        let check = ReadinessCheck(
            interval: .seconds(1),
            now: { probe.clock.withLock { $0 } },
            probe: {
                probe.count.withLock { $0 += 1 }
                // Long enough that the other probes arrive while it runs.
                try? await Task.sleep(for: .milliseconds(50))
                return .notReady("The store cannot be written")
            }
        )
        let verdicts = await withTaskGroup(of: ReadinessCheck.Verdict.self) { group in
            for _ in 0..<50 { group.addTask { await check.verdict() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts.count == 50 && verdicts.allSatisfy { $0 == .notReady("The store cannot be written") })
        #expect(probe.count.withLock { $0 } == 1)

        probe.clock.withLock { $0 += .milliseconds(999) }
        _ = await check.verdict()
        #expect(probe.count.withLock { $0 } == 1, "still within the interval")
        probe.clock.withLock { $0 += .milliseconds(1) }
        _ = await check.verdict()
        #expect(probe.count.withLock { $0 } == 2, "computed again once the interval has passed")
    }
}
