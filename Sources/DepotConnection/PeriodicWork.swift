import Logging
import ServiceLifecycle

/// Runs `work` every `interval` until graceful shutdown, logging its failures: the loop of Depot's
/// background services. The shutdown signal cancels the sleep or the work, either of which ends the loop normally.
package func runPeriodically(
    every interval: Duration,
    logger: Logger,
    failure: Logger.Message,
    _ work: @escaping @Sendable () async throws -> Void
) async {
    await cancelWhenGracefulShutdown {
        while true {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            do {
                try await work()
            } catch {
                // Shutdown cancels work under way; that is no failure.
                if Task.isCancelled { return }
                logger.error(failure, metadata: ["error": "\(error)"])
            }
        }
    }
}
