import Synchronization
import Testing

@testable import DepotServer

/// `/readyz` is public: its work (a catalog read, a file made in the store) is done at most once
/// per interval, and probes arriving meanwhile share it (issue 57, defect 9).
@Suite("Readiness check")
struct ReadinessCheckTests {
    @Test("50 concurrent probes: one computation; the verdict is reused within the interval and computed again after it")
    func onceAnInterval() async throws {
        let probes = HeldProbes()
        let clock = Mutex(Duration.zero)
        let check = ReadinessCheck(
            interval: .seconds(1),
            now: { clock.withLock { $0 } },
            probe: {
                await probes.enter()
                return .notReady("The store cannot be written")
            }
        )
        // The computation is held until every probe has arrived (49 waiting for it, or, were
        // they not shared, 50 computations held): a gate, no sleep.
        probes.hold()
        async let verdicts = withTaskGroup(of: ReadinessCheck.Verdict.self) { group in
            for _ in 0..<50 { group.addTask { await check.verdict() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        while probes.heldNow + (await check.waiters) < 50 { await Task.yield() }
        probes.release()
        let all = await verdicts
        #expect(all.count == 50 && all.allSatisfy { $0 == .notReady("The store cannot be written") })
        #expect(probes.count == 1)

        clock.withLock { $0 += .milliseconds(999) }
        _ = await check.verdict()
        #expect(probes.count == 1, "still within the interval")
        clock.withLock { $0 += .milliseconds(1) }
        _ = await check.verdict()
        #expect(probes.count == 2, "computed again once the interval has passed")
    }
}
