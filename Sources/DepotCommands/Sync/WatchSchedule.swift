import Foundation

/// When `depot sync --watch` tries again: after a success, the interval; after a failure, the
/// interval doubled for each failure in a row after the first, at most ``maximumBackoff``
/// (never less than the interval), less up to a quarter at random so that a fleet that failed
/// together does not come back together. A success starts the doubling over.
///
/// A pure rule, tested as a table (`WatchScheduleTests`); the loop that follows it is
/// ``WatchLoop``.
struct WatchSchedule: Sendable, Equatable {
    /// `--watch`: seconds between two syncs that went well.
    let interval: Double
    /// `--max-backoff`: the longest wait after failures, in seconds.
    let maximumBackoff: Double

    /// The share of a wait the jitter may take off.
    static let jitterShare = 0.25

    /// Seconds to wait after `failures` failures in a row (0 after a success); `jitter`, from 0
    /// up to 1, says how much of ``jitterShare`` is taken off.
    func delay(afterFailures failures: Int, jitter: Double) -> Double {
        guard failures > 0 else { return interval }
        let ceiling = max(interval, maximumBackoff)
        // 2^(failures − 1), without overflow: past 2^62 the ceiling has long been reached.
        let doubled = interval * Double(sign: .plus, exponent: min(failures - 1, 62), significand: 1)
        let wait = min(ceiling, doubled)
        return wait * (1 - Self.jitterShare * min(max(jitter, 0), 1))
    }
}

/// The rounds of `depot sync --watch`: a round, then a wait by ``WatchSchedule``, until the
/// task is cancelled (SIGINT or SIGTERM). A failed round is said in one line and tried again;
/// nothing but cancellation ends the loop.
struct WatchLoop: Sendable {
    let schedule: WatchSchedule
    /// One sync; throws when it failed.
    let round: @Sendable () async throws -> Void
    /// Says a failure: the error, and its line (``failureLine(_:failures:wait:)``).
    let log: @Sendable (any Error, String) -> Void
    /// Waits that many seconds; throws when cancelled.
    let sleep: @Sendable (Double) async throws -> Void
    /// A number from 0 up to 1, for the jitter.
    let jitter: @Sendable () -> Double

    /// Runs rounds until cancelled.
    func run() async {
        var failures = 0
        while !Task.isCancelled {
            var failure: (any Error)?
            do {
                try await round()
            } catch {
                // A round cut short by the stop is no failure to tell.
                if Task.isCancelled { return }
                failure = error
            }
            failures = failure == nil ? 0 : failures + 1
            let wait = schedule.delay(afterFailures: failures, jitter: jitter())
            if let failure { log(failure, Self.failureLine(failure, failures: failures, wait: wait)) }
            do {
                try await sleep(wait)
            } catch {
                return
            }
        }
    }

    /// `Sync failed: cannot reach http://127.0.0.1:9: Could not connect to the server. Failures
    /// in a row: 2; trying again in 3.4 s.`: what failed, without the URLs' credentials, and
    /// when the next round is.
    static func failureLine(_ error: any Error, failures: Int, wait: Double) -> String {
        let message = FailureDocument(error).error.message
        let sentence = message.last.map { ".!?".contains($0) } == true ? message : message + "."
        return "Sync failed: \(sentence) Failures in a row: \(failures); trying again in \(String(format: "%.1f", wait)) s."
    }
}
