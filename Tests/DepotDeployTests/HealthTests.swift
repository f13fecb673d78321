import DepotTestSupport
import Foundation
import Testing

/// Liveness and readiness, as a load balancer or systemd would probe them.
@Suite("Health")
struct HealthTests {
    @Test("/healthz and /readyz answer 200 on a working server")
    func healthy() async throws {
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let health = try await connection.request("GET", "/healthz")
                #expect(health.status == 200)
                #expect(health.bodyText == #"{"status":"ok"}"#)
                let ready = try await connection.request("GET", "/readyz")
                #expect(ready.status == 200)
                #expect(ready.bodyText == #"{"status":"ready"}"#)
            }
        }
    }

    @Test("/readyz is 503 when the store cannot be written, while /healthz stays 200")
    func storeNotWritable() async throws {
        try await LiveServer.withPublishing { server in
            // A file where the temporary folder should be: no file can be created in it, even by root.
            let temporary = server.dataDirectory.appendingPathComponent("tmp")
            try FileManager.default.removeItem(at: temporary)
            try Data("not a folder".utf8).write(to: temporary)
            try await RawHTTPConnection.with(port: server.port) { connection in
                let ready = try await connection.request("GET", "/readyz")
                #expect(ready.status == 503)
                #expect(ready.bodyText.contains("The store cannot be written"))
                // Nothing internal: no path, no errno text.
                #expect(!ready.bodyText.contains(server.dataDirectory.path))
                #expect(try await connection.request("GET", "/healthz").status == 200)
            }
        }
    }
}
