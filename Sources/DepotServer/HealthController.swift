import DepotStore
import Foundation
import Hummingbird
import Logging

/// `/healthz`: the process answers. `/readyz`: it can do its work, meaning the public folder is
/// served (``PublicSite/isScanned``), the catalog answers a read and the store can create a
/// file. 503 otherwise, saying which part failed but nothing of
/// the error itself (paths, SQL): the route is public, and the details go to the log.
struct HealthController: Sendable {
    let catalog: Catalog
    let store: BlobStore
    let site: PublicSite
    let logger: Logger

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.get("/healthz") { _, _ in Self.status("ok") }
        router.get("/readyz") { _, _ in try await ready() }
    }

    func ready() async throws -> Response {
        guard site.isScanned else { throw site.notYetServed }
        do {
            _ = try await catalog.referencedBlobs()
        } catch {
            logger.error("Not ready: the catalog cannot be read", metadata: ["error": "\(error)"])
            throw HTTPError(.serviceUnavailable, message: "The catalog cannot be read")
        }
        do {
            try await store.checkWritable()
        } catch {
            logger.error("Not ready: the store cannot be written", metadata: ["error": "\(error)"])
            throw HTTPError(.serviceUnavailable, message: "The store cannot be written")
        }
        return Self.status("ready")
    }

    static func status(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(string: #"{"status":"\#(text)"}"#))
        )
    }
}
