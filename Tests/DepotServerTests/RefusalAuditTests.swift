import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `/metrics` and the admin API refuse through ``ScopedRoutes`` like the rest of `/v1`: each
/// refusal, with the same answer as before, leaves a record in the audit trail.
@Suite("Refusals of metrics and the admin API are audited")
struct RefusalAuditTests {
    @Test("a refused /metrics and a refused admin request each leave an audit record; a request naming no one leaves none")
    func refusalsAudited() async throws {
        var configuration = ServerConfiguration(metricsAllowedAddresses: [], dashboard: DashboardConfiguration(enabled: true, allowedAddresses: []))
        configuration.accessTokens = [
            try AccessToken(entry: "name=ci publish=beta token=ci-secret", position: 1),
            try AccessToken(entry: "name=reader read token=reader-secret", position: 2),
        ]
        // Over a socket: in process, requests come from no address, and /metrics takes a token.
        try await LiveServer.withPublishing(configuration: configuration) { server in
            func get(_ path: String, token: String? = nil) async throws -> RawHTTPResponse {
                let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
                return try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", path, headers: headers) }
            }
            let metrics = try await get("/metrics")
            #expect(metrics.status == 403 && metrics.bodyText.contains("Metrics are not available to this address"), "\(metrics.bodyText)")
            let admin = try await get("/v1/admin/overview", token: "ci-secret")
            #expect(admin.status == 401 && admin.header("WWW-Authenticate")?.hasPrefix("Basic") == true, "\(admin.status)")
            #expect(try await get("/v1/admin/traffic").status == 401, "no token, from an address not allowed")
            #expect(try await get("/v1/admin/traffic", token: "not-a-token").status == 401, "a wrong token names no one: not recorded")
            #expect(try await get("/v1/admin/overview", token: "reader-secret").status == 200)

            let audit = try await get("/v1/audit", token: "reader-secret")
            let refused = try APIJSON.decode(AuditList.self, from: Data(audit.body)).records.filter { $0.action == "refused" }
            #expect(refused.contains { $0.detail == "GET /metrics needs metrics.allowedAddresses" && $0.client == "127.0.0.1" }, "\(refused)")
            #expect(refused.contains { $0.token == "ci" && $0.detail == "GET /v1/admin/overview needs read" }, "\(refused)")
            #expect(
                refused.contains { $0.token == "address" && $0.client == "127.0.0.1" && $0.detail == "GET /v1/admin/traffic needs read" },
                "\(refused)"
            )
            #expect(refused.count == 3, "\(refused)")
        }
    }
}
