import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotCommands

/// `depot sync --watch` as a kiosk, a mirror or a sidecar runs it: a server that is not there
/// yet is a logged failure and a retry, not the end; the backoff is a rule tested as a table,
/// the loop with an injected sleep. The process itself (its retries, SIGTERM) is
/// SyncWatchProcessTests'.
@Suite("depot sync --watch")
struct SyncWatchTests {
    /// (failures in a row, jitter, seconds): `--watch 2 --max-backoff 30s`.
    static let delays: [(Int, Double, Double)] = [
        (0, 0, 2), (0, 1, 2),  // a success: the interval, no jitter
        (1, 0, 2), (2, 0, 4), (3, 0, 8), (4, 0, 16), (5, 0, 30), (6, 0, 30), (1_000, 0, 30),  // doubling, capped
        (1, 1, 1.5), (5, 1, 22.5), (3, 0.5, 7),  // a quarter at most taken off
        (2, -3, 4), (2, 7, 3),  // jitter outside 0...1 clamped
    ]

    @Test("the backoff: the interval doubled for each failure in a row, capped, less up to a quarter", arguments: delays)
    func backoff(failures: Int, jitter: Double, seconds: Double) {
        #expect(WatchSchedule(interval: 2, maximumBackoff: 30).delay(afterFailures: failures, jitter: jitter) == seconds)
    }

    @Test("a cap below the interval never makes failures retry more often than the interval")
    func capBelowInterval() {
        let schedule = WatchSchedule(interval: 3600, maximumBackoff: 300)
        #expect(schedule.delay(afterFailures: 1, jitter: 0) == 3600)
        #expect(schedule.delay(afterFailures: 9, jitter: 0) == 3600)
    }

    @Test("the loop: a failure is logged and waits longer each time; a success starts over; a cancelled sleep ends it")
    func loop() async {
        // Rounds: three failures, a success, a failure, a success; the seventh sleep stops it.
        let outcomes: [Bool] = [false, false, false, true, false, true]
        let state = Mutex((round: 0, sleeps: [Double](), lines: [String]()))
        struct Down: Error, CustomStringConvertible {
            var description: String { "cannot connect to http://user:secret@127.0.0.1:9/: connection refused" }
        }
        let loop = WatchLoop(
            schedule: WatchSchedule(interval: 1, maximumBackoff: 300),
            round: {
                let ok = state.withLock { state in
                    defer { state.round += 1 }
                    return state.round < outcomes.count ? outcomes[state.round] : true
                }
                if !ok { throw Down() }
            },
            log: { _, line in state.withLock { $0.lines.append(line) } },
            sleep: { seconds in
                let count = state.withLock { state in
                    state.sleeps.append(seconds)
                    return state.sleeps.count
                }
                if count == 7 { throw CancellationError() }
            },
            jitter: { 0 }
        )
        await loop.run()
        let (round, sleeps, lines) = state.withLock { ($0.round, $0.sleeps, $0.lines) }
        #expect(round == 7)
        #expect(sleeps == [1, 2, 4, 1, 1, 1, 1])
        #expect(lines.count == 4)
        #expect(
            lines.first == "Sync failed: cannot connect to http://127.0.0.1:9/: connection refused. Failures in a row: 1; trying again in 1.0 s."
        )
        #expect(lines.dropFirst(2).first?.contains("Failures in a row: 3; trying again in 4.0 s.") == true, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("secret") })
    }
}
