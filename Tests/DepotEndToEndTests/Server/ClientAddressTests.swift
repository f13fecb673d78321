import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Who the client is, by its address: `/metrics` and the admin API let in the addresses their
/// allow-lists name (or a token), a trusted proxy's forwarded client is judged instead of the
/// proxy, and an audited refusal records the client's address. Over a socket: in process, a
/// request comes from no address (InProcessServer).
@Suite("Client addresses: allow-lists, forwarded clients, audited refusals")
struct ClientAddressTests {
    @Test("only allowed addresses, or holders of the metrics token, may read /metrics")
    func restricted() async throws {
        try await LiveServer.withPublishing(configuration: .init(metricsAllowedAddresses: [])) { server in
            let response = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/metrics") }
            #expect(response.status == 403)
        }
        try await LiveServer.withPublishing(configuration: .init(metricsToken: "metrics-secret")) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                #expect(try await connection.request("GET", "/metrics").status == 401, "the token is required even from 127.0.0.1")
                let allowed = try await connection.request("GET", "/metrics", headers: [("Authorization", "Bearer metrics-secret")])
                #expect(allowed.status == 200)
            }
        }
    }

    @Test("behind a trusted proxy, /metrics is decided by the forwarded client, not the proxy's address")
    func metricsBehindProxy() async throws {
        var configuration = ServerConfiguration()
        configuration.trustedProxies = ["127.0.0.1"]
        try await LiveServer.with(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let outside = try await connection.request("GET", "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")])
                #expect(outside.status == 403)
                let spoofed = try await connection.request("GET", "/metrics", headers: [("X-Forwarded-For", "127.0.0.1, 203.0.113.9")])
                #expect(spoofed.status == 403)
                let local = try await connection.request("GET", "/metrics", headers: [("X-Forwarded-For", "127.0.0.1")])
                #expect(local.status == 200)
                #expect(try await connection.request("GET", "/metrics").status == 200)
            }
        }
    }

    @Test("with the dashboard on, /metrics and the admin API are the routes behind gates, and each gate lets in exactly whom the table says")
    func gates() async throws {
        var configuration = ServerConfiguration(metricsAllowedAddresses: [], dashboard: DashboardConfiguration(enabled: true, allowedAddresses: []))
        configuration.accessTokens = try RouteSamples.tokens.enumerated().map {
            try AccessToken(entry: $0.element.entry, position: $0.offset + 1)
        }
        try await LiveServer.withPublishing(configuration: configuration) { server in
            let gatedRoutes = server.routes.all.filter { $0 == "GET /metrics" || $0.hasPrefix("GET /v1/admin/") }
            #expect(Set(gatedRoutes) == Set(RouteSamples.gated.map(\.route)))
            for row in RouteSamples.gated {
                let (method, path) = RouteSamples.concrete(row.route)
                for (secret, expected) in [(nil, row.bare), ("ci-secret", row.noRead), ("reader-secret", row.read)] {
                    let headers = secret.map { [("Authorization", "Bearer \($0)")] } ?? []
                    let response = try await RawHTTPConnection.with(port: server.port) { try await $0.request(method, path, headers: headers) }
                    #expect(response.status == expected, "\(row.route) with \(secret ?? "nothing"): \(response.status) \(response.bodyText)")
                }
            }
        }
    }

    /// `/metrics` and the admin API refuse through ``ScopedRoutes`` like the rest of `/v1`: each
    /// refusal, with the same answer as before, leaves a record in the audit trail.
    @Test("a refused /metrics and a refused admin request each leave an audit record; a request naming no one leaves none")
    func refusalsAudited() async throws {
        var configuration = ServerConfiguration(metricsAllowedAddresses: [], dashboard: DashboardConfiguration(enabled: true, allowedAddresses: []))
        configuration.accessTokens = [
            try AccessToken(entry: "name=ci publish=beta token=ci-secret", position: 1),
            try AccessToken(entry: "name=reader read token=reader-secret", position: 2),
        ]
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
