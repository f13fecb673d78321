import DepotConcurrency
import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// Issue 58, attack: what a naive configuration or a local process editing the folder can make a
/// ``DepotUpdater``'s schedule do. A zero or negative retry delay still backs off (from one
/// second); a stamp edited to any number, or to anything but a stamp, gives a sane first delay
/// and never traps.
@Suite("DepotUpdater schedule, attacked")
struct UpdaterStampAttackTests {
    @Test(
        "a retry delay of zero or less still waits, and doubles: a down server is not asked again at once, forever",
        arguments: [
            (0, 1, 0.0, 1.0), (0, 2, 0.0, 2.0), (0, 3, 0.0, 4.0), (0, 10, 0.0, 60.0),
            (-5, 1, 0.0, 1.0), (-5, 4, 0.0, 8.0),
            (0, 10, -1.0, 48.0),  // the jitter moves the capped delay as before
        ] as [(Int64, Int, Double, Double)]
    )
    func zeroRetry(retry: Int64, failures: Int, draw: Double, seconds: Double) {
        let schedule = UpdateSchedule(interval: .seconds(100), retryDelay: .seconds(retry), maximumRetryDelay: .seconds(60), jitter: 0.2)
        #expect(schedule.delay(afterFailures: failures, draw: draw) == .seconds(seconds))
    }

    @Test("a cap below one second does not undo the floor")
    func zeroCap() {
        let schedule = UpdateSchedule(interval: .seconds(100), retryDelay: .zero, maximumRetryDelay: .zero, jitter: 0)
        #expect(schedule.delay(afterFailures: 5, draw: 0) == .seconds(1))
    }

    @Test(
        "a stamp edited to any number, or to anything but a stamp: the first check a whole interval away (or, when it says long ago, now), no trap",
        arguments: [
            (#"{"checkedAt":-9223372036854775808}"#, 100.0),  // Int64.min: the subtraction overflowed, and trapped
            (#"{"checkedAt":9223372036854775807}"#, 100.0),  // far ahead
            (#"{"checkedAt":-1}"#, 0.0),  // long ago
            (#"{"checkedAt":0}"#, 0.0),
            (#"{"checkedAt":1e300}"#, 100.0),  // not an Int64
            (#"{"checkedAt":"soon"}"#, 100.0),
            ("not json", 100.0),
            ("", 100.0),
            // A stamp checked 70 s ago, padded past 4 KiB (a file grown by another process): not
            // read, so a whole interval; it was read whole, and its check taken (30 s).
            (#"{"checkedAt":1799999930}"# + String(repeating: " ", count: 8192), 100.0),
        ] as [(String, Double)]
    )
    func editedStamp(contents: String, firstDelay: Double) async throws {
        #expect(try await UpdaterScheduleTests.firstDelay(stamp: contents) == .seconds(firstDelay))
    }

    @Test("states taken and dropped, or iterated and abandoned, leave no subscriber behind; one never iterated holds 16 states at most")
    func abandonedStates() async throws {
        try await withTemporaryDirectory { folder in
            let client = DepotClient(server: UpdaterScheduleTests.down, directory: folder.appendingPathComponent("app"))
            let updater = DepotUpdater(client: client, configuration: .init(clock: ManualClock()))
            for _ in 0..<10_000 { _ = updater.states }
            for _ in 0..<100 {
                var states = updater.states.makeAsyncIterator()
                _ = await states.next()
            }
            #expect(updater.inner.withLock { $0.subscribers.count } == 0)

            let kept = updater.states
            for _ in 0..<1_000 { updater.set(.checking) }
            var seen = 0
            var iterator = kept.makeAsyncIterator()
            updater.set(.idle)
            while let state = await iterator.next() {
                seen += 1
                if state == .idle { break }
            }
            #expect(seen <= 16)
        }
    }
}
