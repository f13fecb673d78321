import DepotConnection
import Logging
import ServiceLifecycle

/// Re-signs channel documents as time passes: ``ChannelSigner`` steps a document's expiry every
/// half validity, and this makes the new documents within a minute of each step.
struct ChannelRefreshService: Service {
    let documents: ChannelDocuments
    let logger: Logger

    func run() async throws {
        let interval = min(Duration.seconds(60), documents.signer.validity / 4)
        await runPeriodically(every: interval, logger: logger, failure: "Re-signing channel documents failed") {
            try await documents.reload()
        }
    }
}
