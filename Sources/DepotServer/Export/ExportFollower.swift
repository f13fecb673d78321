import Logging
import ServiceLifecycle

/// Keeps the export folder (`export.directory`) in step with the channel documents: a
/// subscriber of ``ChannelDocuments/updates()`` that writes each new set, and every object its
/// releases need, at its own pace (``StaticExport/follow(_:)``). A publish does not wait for it:
/// it answers once the catalog and the served documents have the release, and the export
/// catches up.
struct ExportFollower: Service {
    let documents: ChannelDocuments
    let export: StaticExport
    /// Awaited before each export: for tests that hold the export back.
    var beforeExport: (@Sendable () async -> Void)?

    func run() async throws {
        for await channels in documents.updates().cancelOnGracefulShutdown() {
            await beforeExport?()
            await export.follow { channels }
        }
    }
}
