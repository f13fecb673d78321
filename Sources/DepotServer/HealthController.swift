import DepotStore
import Foundation
import Hummingbird

/// `/healthz`: the process answers. `/readyz`: it can do its work, meaning the catalog answers a
/// read and the store can create a file. 503 with the reason otherwise.
struct HealthController: Sendable {
    let catalog: Catalog
    let store: BlobStore

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.get("/healthz") { _, _ in Self.status("ok") }
        router.get("/readyz") { _, _ in try await ready() }
    }

    func ready() async throws -> Response {
        do {
            _ = try await catalog.referencedBlobs()
        } catch {
            throw HTTPError(.serviceUnavailable, message: "The catalog cannot be read: \(error)")
        }
        do {
            try await store.checkWritable()
        } catch {
            throw HTTPError(.serviceUnavailable, message: "The store cannot be written: \(error)")
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
