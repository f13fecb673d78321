import DepotConcurrency
import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// Issue 58: when a ``DepotUpdater`` checks. The rule as a table (``UpdateSchedule``), then the
/// updater itself against a server that is down, on a clock only the test moves: no check before
/// the interval, one at it, and after each failure a retry 1×, 2×, 4× the retry delay, capped,
/// each moved by the jitter drawn from the injected source; cancelling its task stops it.
@Suite("DepotUpdater schedule")
struct UpdaterScheduleTests {
    static let schedule = UpdateSchedule(interval: .seconds(100), retryDelay: .seconds(10), maximumRetryDelay: .seconds(60), jitter: 0.2)

    @Test(
        "the delay after n failures in a row, moved by the jitter drawn",
        arguments: [
            (0, 0.0, 100.0), (1, 0.0, 10.0), (2, 0.0, 20.0), (3, 0.0, 40.0), (4, 0.0, 60.0), (5, 0.0, 60.0),
            (10_000, 0.0, 60.0),  // no overflow past the cap
            (0, 1.0, 120.0), (0, -1.0, 80.0), (2, 0.5, 22.0), (4, -1.0, 48.0),
            (0, 7.0, 120.0), (0, -7.0, 80.0),  // a draw out of -1...1 moves no further than the jitter
        ] as [(Int, Double, Double)]
    )
    func delays(failures: Int, draw: Double, seconds: Double) {
        #expect(Self.schedule.delay(afterFailures: failures, draw: draw) == .seconds(seconds))
    }

    @Test(
        "the time since the last successful check counts towards the interval, not towards a retry",
        arguments: [
            (0, 0.0, 30.0, 70.0), (0, 0.0, 100.0, 0.0), (0, 0.0, 10_000.0, 0.0),  // due, or overdue: now
            (0, 1.0, 30.0, 90.0),  // the jittered interval, less the time since
            (0, 0.0, 0.0, 100.0),
            (2, 0.0, 30.0, 20.0),  // a retry waits its backoff whatever the last success
        ] as [(Int, Double, Double, Double)]
    )
    func elapsed(failures: Int, draw: Double, elapsed: Double, seconds: Double) {
        #expect(Self.schedule.delay(afterFailures: failures, draw: draw, elapsed: .seconds(elapsed)) == .seconds(seconds))
    }

    @Test(
        "a relaunched updater checks one interval after the last check recorded in the folder, not one after its launch",
        arguments: [
            (70.0, 30.0),  // checked 70 s ago: due in 30
            (500.0, 0.0),  // overdue: at once
            (-50.0, 100.0),  // a check ahead of now (the clock set back): a whole interval
        ] as [(Double, Double)]
    )
    func relaunched(checkedAgo: Double, firstDelay: Double) async throws {
        let stamp = #"{"checkedAt":\#(Int64(Self.now.timeIntervalSince1970 - checkedAgo))}"#
        #expect(try await Self.firstDelay(stamp: stamp) == .seconds(firstDelay))
    }

    /// The time the stamp tests run at.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The first delay `run()` schedules for a folder whose `.depot/updater.json` holds `stamp`,
    /// at ``now``, with an interval of 100 s and no jitter; the run is then cancelled (its
    /// server is down: no check is reached).
    static func firstDelay(stamp: String) async throws -> Duration? {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(stamp.utf8), to: "app/.depot/updater.json")
            let configuration = DepotUpdater.Configuration(interval: .seconds(100), jitter: 0, clock: ManualClock(), now: { now })
            let (delays, scheduled) = AsyncStream.makeStream(of: Duration.self)
            let client = DepotClient(server: down, directory: folder.appendingPathComponent("app"))
            let updater = DepotUpdater(client: client, configuration: configuration, scheduled: { scheduled.yield($0) })
            let running = Task { await updater.run() }
            var waits = delays.makeAsyncIterator()
            let first = await waits.next()
            running.cancel()
            await running.value
            return first
        }
    }

    /// A server nothing listens on: every check fails at once with `.network`.
    static let down = URL(string: "http://127.0.0.1:1/")!

    /// The draws of the random source, in turn.
    final class Draws: Sendable {
        let values: [Double]
        let next = Locked(0)
        init(_ values: [Double]) { self.values = values }
        func draw() -> Double {
            next.withLock { next in
                defer { next += 1 }
                return values[next % values.count]
            }
        }
    }

    @Test(
        "no check before the interval, one at it; after failures 1x, 2x, 4x the retry delay, capped, within the jitter; cancel stops",
        .timeLimit(.minutes(10))
    )
    func backoffAgainstADownServer() async throws {
        try await withTemporaryDirectory { folder in
            let clock = ManualClock()
            let draws = Draws([0.5, -1, 1, 0, -0.5, 0.25])
            let configuration = DepotUpdater.Configuration(
                interval: .seconds(100),
                retryDelay: .seconds(10),
                maximumRetryDelay: .seconds(50),
                jitter: 0.2,
                clock: clock,
                random: { draws.draw() }
            )
            let (delays, scheduled) = AsyncStream.makeStream(of: Duration.self)
            let client = DepotClient(server: Self.down, directory: folder.appendingPathComponent("app"))
            let updater = DepotUpdater(client: client, configuration: configuration, scheduled: { scheduled.yield($0) })
            var states = updater.states.makeAsyncIterator()
            #expect(await states.next() == .idle)
            var waits = delays.makeAsyncIterator()

            let running = Task { await updater.run() }
            // The first check, one interval (jittered by the first draw, +0.5 × 20 %) away.
            #expect(await waits.next() == .seconds(110))
            clock.advance(by: .seconds(109))
            #expect(clock.sleepers == 1, "checked before the interval")
            #expect(updater.state == .idle)
            clock.advance(by: .seconds(1))
            #expect(clock.sleepers == 0, "no check at the interval")
            #expect(await states.next() == .checking)
            let failed = await states.next()
            guard case .failed(let error) = failed else {
                Issue.record("\(String(describing: failed))")
                return
            }
            #expect(error.code == .network)

            // Retries: 10 s × 2ⁿ⁻¹ capped at 50 s, each moved by the next draw × 20 %.
            let expected: [Duration] = [.seconds(8), .seconds(24), .seconds(40), .seconds(45), .seconds(52.5), .seconds(55)]
            for delay in expected {
                #expect(await waits.next() == delay)
                clock.advance(by: delay - .milliseconds(1))
                #expect(clock.sleepers == 1, "retried before \(delay)")
                clock.advance(by: .milliseconds(1))
                #expect(clock.sleepers == 0, "no retry at \(delay)")
                #expect(await states.next() == .checking)
                guard case .failed = await states.next() else {
                    Issue.record("a retry did not fail")
                    return
                }
            }

            #expect(await waits.next() != nil)
            running.cancel()
            await running.value
            #expect(clock.sleepers == 0, "the cancelled updater still waits")
            // No check after the cancel: the state is still the last check's.
            guard case .failed = updater.state else {
                Issue.record("checked after the cancel: \(updater.state)")
                return
            }
            scheduled.finish()
            #expect(await waits.next() == nil, "the cancelled updater scheduled another check")
        }
    }
}
