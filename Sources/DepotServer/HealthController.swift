import DepotConnection
import DepotStore
import Foundation
import Hummingbird
import Logging

/// `/healthz`: the process answers. `/readyz`: it can do its work, meaning the public folder is
/// served (``PublicSite/isScanned``), the catalog answers a read and the store can create a
/// file. 503 otherwise, saying which part failed but nothing of
/// the error itself (paths, SQL): the route is public, and the details go to the log. The
/// catalog and store are checked at most once a second (``ReadinessCheck``), whatever the
/// number of probes.
struct HealthController: Sendable {
    let site: PublicSite
    let check: ReadinessCheck

    /// - Parameters:
    ///   - interval: how long a verdict is reused.
    ///   - clock: the time verdicts age by (a test's, or the system's monotonic clock).
    ///   - beforeProbe: awaited at the start of each computation, for tests that count or hold them.
    init(
        maintenance: Maintenance,
        store: BlobStore,
        site: PublicSite,
        logger: Logger,
        interval: Duration = .seconds(1),
        clock: ConnectionClock = .system,
        beforeProbe: (@Sendable () async -> Void)? = nil
    ) {
        self.site = site
        check = ReadinessCheck(
            interval: interval,
            now: clock.now,
            probe: {
                await beforeProbe?()
                return await Self.probe(maintenance: maintenance, store: store, logger: logger)
            }
        )
    }

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.get("/healthz") { _, _ in Self.status("ok") }
        router.get("/readyz") { _, _ in try await ready() }
    }

    func ready() async throws -> Response {
        guard site.isScanned else { throw site.notYetServed }
        switch await check.verdict() {
        case .ready: return Self.status("ready")
        case .notReady(let reason): throw HTTPError(.serviceUnavailable, message: reason)
        }
    }

    /// One computation: a read of the catalog, a file created and removed in the store.
    static func probe(maintenance: Maintenance, store: BlobStore, logger: Logger) async -> ReadinessCheck.Verdict {
        do {
            try await maintenance.checkReadable()
        } catch {
            logger.error("Not ready: the catalog cannot be read", metadata: ["error": "\(error)"])
            return .notReady("The catalog cannot be read")
        }
        do {
            try await store.checkWritable()
        } catch {
            logger.error("Not ready: the store cannot be written", metadata: ["error": "\(error)"])
            return .notReady("The store cannot be written")
        }
        return .ready
    }

    static func status(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(string: #"{"status":"\#(text)"}"#))
        )
    }
}
