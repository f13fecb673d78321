import DepotConnection
import DepotHTTP
import DepotStore
import Logging
import ServiceLifecycle

/// Removes what nothing needs any more, at an interval until graceful shutdown: versions retired
/// longer ago than the grace period, then blob files that no catalog version, no public file
/// and no publish under way refers to (see ``BlobStore/removeBlobs(olderThan:referenced:)``).
struct BlobCollectionService: Service {
    let blobs: BlobIndex
    /// Retention and the references collection spares.
    let maintenance: Maintenance
    let store: BlobStore
    let content: PublishedContent
    /// The export folder, swept of what retention removed.
    let export: StaticExport?
    let site: PublicSite
    let configuration: PublishConfiguration
    let metrics: DepotMetrics
    let logger: Logger

    func run() async throws {
        await runPeriodically(every: configuration.collectionInterval, logger: logger, failure: "Collecting unreferenced blobs failed") {
            try await collect(now: .now())
        }
    }

    func collect(now: HTTPDate) async throws {
        let grace = configuration.retiredGracePeriod.components.seconds
        let cutoff = HTTPDate(secondsSince1970: now.secondsSince1970 - grace)
        try await blobs.forgetUploads(before: HTTPDate(secondsSince1970: now.secondsSince1970 - configuration.uploadLifetime.components.seconds))
        let releases = try await maintenance.collectReleases(keeping: configuration.keepReleases, now: now, before: cutoff)
        let removed = try await maintenance.removeRetired(before: cutoff, sparingHeldBy: store)
        if removed > 0 || releases > 0 { content.removedRetiredVersions() }
        let unexported = try await export?.sweep() ?? 0
        let deleted = try await store.removeBlobs(olderThan: cutoff) {
            site.blobHashes.union(try await maintenance.referencedBlobs())
        }
        // Whatever requests and publishes freed since the last run goes back to the kernel too.
        Heap.returnFreedPages()
        metrics.recordCollection()
        if removed > 0 || deleted > 0 || releases > 0 || unexported > 0 {
            logger.info(
                "Collected retired releases, versions and blobs",
                metadata: ["releases": "\(releases)", "versions": "\(removed)", "blobs": "\(deleted)", "exportedFiles": "\(unexported)"]
            )
        }
    }
}
