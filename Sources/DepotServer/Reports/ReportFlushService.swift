import DepotConnection
import DepotHTTP
import Logging
import ServiceLifecycle

/// Counts the reports ``ReportIntake`` took into the catalog every
/// ``ReportConfiguration/flushInterval``, and once more on shutdown.
struct ReportFlushService: Service {
    let intake: ReportIntake
    /// The time whose minute reports are counted in (``RolloutConfiguration/clock``).
    let clock: @Sendable () -> HTTPDate
    let logger: Logger

    func run() async throws {
        await runPeriodically(every: intake.configuration.flushInterval, logger: logger, failure: "Counting reports failed") {
            try await intake.flush(now: clock())
        }
        do {
            try await intake.flush(now: clock())
        } catch {
            logger.error("Counting reports on shutdown failed", metadata: ["error": "\(error)"])
        }
    }
}
