import DepotConnection
import Logging
import ServiceLifecycle

/// Drives running rollouts: every ``RolloutConfiguration/tickInterval`` it counts the reports
/// taken, then weighs each running rollout's
/// gate on the reports since its step began and carries out the decision (``Publisher/tickRollouts(now:minNetworks:verdicts:logger:)``).
/// Its state is the catalog's, so a restart goes on where the last tick left it; it logs each
/// rollout's gate verdict when it changes (``GateVerdicts``).
struct RolloutScheduler: Service {
    let publisher: Publisher
    /// Its reports are counted first, so a tick weighs every report taken before it.
    let reports: ReportIntake
    let configuration: RolloutConfiguration
    let logger: Logger

    func run() async throws {
        let verdicts = GateVerdicts()
        await runPeriodically(every: configuration.tickInterval, logger: logger, failure: "A rollout tick failed") {
            let now = configuration.clock()
            try await reports.flush(now: now)
            try await publisher.tickRollouts(now: now, minNetworks: reports.configuration.gateNetworks, verdicts: verdicts, logger: logger)
        }
    }
}
