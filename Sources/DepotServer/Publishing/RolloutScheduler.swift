import DepotConnection
import DepotHTTP
import Logging
import ServiceLifecycle

/// Drives running rollouts: every ``RolloutConfiguration/tickInterval`` it weighs each one's
/// gate on the reports since its step began and carries out the decision (``Publisher/tickRollouts(now:logger:)``).
/// Its state is the catalog's, so a restart goes on where the last tick left it.
struct RolloutScheduler: Service {
    let publisher: Publisher
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await runPeriodically(every: interval, logger: logger, failure: "A rollout tick failed") {
            try await publisher.tickRollouts(now: .now(), logger: logger)
        }
    }
}
