import DepotConnection
import Logging
import ServiceLifecycle

/// Re-signs channel documents as time passes: ``ChannelSigner`` steps a document's expiry every
/// half validity, and this makes the new documents within a minute of each step.
struct ChannelRefreshService: Service {
    let content: PublishedContent
    let signer: ChannelSigner
    let logger: Logger

    func run() async throws {
        let interval = min(Duration.seconds(60), signer.validity / 4)
        await runPeriodically(every: interval, logger: logger, failure: "Re-signing channel documents failed") {
            try await content.reloadChannels()
        }
    }
}
