import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `/metrics` and the admin API behind their ``RouteGate``s, attacked as an anonymous client
/// would: by spelling the path another way, and by being refused over and over so that each
/// refusal is stored. In process: the router and the audit trail are the subject, not the socket
/// (a request in process comes from no address, which no allow-list holds).
@Suite("Attacks on the gated routes")
struct GateAttackTests {
    /// A dashboard no address may read, a reader token, a token without `read`, and the test's clock.
    static func configuration(clock: TestClock) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(metricsAllowedAddresses: [], dashboard: DashboardConfiguration(enabled: true, allowedAddresses: []))
        configuration.accessTokens = [
            try AccessToken(entry: "name=ci publish=beta token=ci-secret", position: 1),
            try AccessToken(entry: "name=reader read token=reader-secret", position: 2),
        ]
        configuration.rollouts = RolloutConfiguration(clock: { clock.now })
        return configuration
    }

    static func refusals(_ connection: inout InProcessConnection) async throws -> [AuditList.Record] {
        let audit = try await connection.request("GET", "/v1/audit?limit=500", headers: [("Authorization", "Bearer reader-secret")])
        return try APIJSON.decode(AuditList.self, from: Data(audit.body)).records.filter { $0.action == "refused" }
    }

    /// Each way of spelling the gated paths: none gets past the gate without credentials (a dot
    /// segment, an empty one or an encoded slash is refused before any route: 400).
    static let variants: [(method: String, path: String)] = [
        ("GET", "/metrics"), ("HEAD", "/metrics"), ("GET", "/metrics/"), ("GET", "//metrics"), ("GET", "/METRICS"),
        ("GET", "/metrics?format=json"), ("GET", "/%6Detrics"), ("GET", "/metrics%2F"), ("GET", "/metrics."), ("GET", "/./metrics"),
        ("GET", "/x/../metrics"), ("POST", "/metrics"),
        ("GET", "/v1/admin/overview"), ("HEAD", "/v1/admin/overview"), ("GET", "/v1/admin/overview/"), ("GET", "/v1//admin/overview"),
        ("GET", "//v1/admin/traffic"), ("GET", "/V1/ADMIN/OVERVIEW"), ("GET", "/v1/admin/../admin/overview"), ("GET", "/v1/%61dmin/overview"),
        ("GET", "/v1/admin/%6Fverview"), ("GET", "/v1/admin/overview."), ("GET", "/v1/admin/overview;x"), ("GET", "/v1/admin%2Foverview"),
        ("GET", "/v1/admin/./traffic"), ("GET", "/v1/admin/file?path=../../etc/passwd"), ("GET", "/v1/admin/diff"), ("POST", "/v1/admin/overview"),
    ]

    @Test("no spelling of /metrics or /v1/admin/… is answered without credentials")
    func pathVariants() async throws {
        try await InProcessServer.with(configuration: try Self.configuration(clock: TestClock())) { server in
            try await server.connection { connection in
                for (method, path) in Self.variants {
                    let reply = try await connection.request(method, path)
                    #expect([400, 401, 403, 404, 405].contains(reply.status), "\(method) \(path): \(reply.status) \(reply.bodyText.prefix(200))")
                    #expect(
                        !reply.bodyText.contains("depot_") && !reply.bodyText.contains("\"channels\""),
                        "\(method) \(path): \(reply.bodyText.prefix(200))"
                    )
                }
                let allowed = try await connection.request("GET", "/v1/admin/overview", headers: [("Authorization", "Bearer reader-secret")])
                #expect(allowed.status == 200, "the same request with a reader's token: \(allowed.status)")
            }
        }
    }

    /// What one anonymous client makes the server store by being refused: the refusals of
    /// requests naming no token share one budget of 60 a minute (`address`), whichever address
    /// they come from, so an hour of refusals stores at most 3,600 records of a few hundred bytes;
    /// a token's refusals have a budget of their own, which the flood does not use up.
    @Test("anonymous refusals are recorded within one budget a minute, a token's within its own")
    func refusalBudget() async throws {
        let clock = TestClock()
        try await InProcessServer.with(configuration: try Self.configuration(clock: clock)) { server in
            try await server.connection { connection in
                for _ in 0..<100 { #expect(try await connection.request("GET", "/v1/admin/traffic").status == 401) }
                var refused = try await Self.refusals(&connection)
                #expect(refused.count == 60, "one minute of anonymous refusals: \(refused.count) records")
                #expect(refused.allSatisfy { $0.token == "address" && $0.detail == "GET /v1/admin/traffic needs read" })

                for _ in 0..<3 {
                    #expect(try await connection.request("GET", "/v1/admin/overview", headers: [("Authorization", "Bearer ci-secret")]).status == 401)
                }
                refused = try await Self.refusals(&connection)
                #expect(refused.filter { $0.token == "ci" }.count == 3, "a token's refusals, after the anonymous budget is spent")

                clock.advance(by: 60)
                for _ in 0..<100 { _ = try await connection.request("GET", "/v1/admin/traffic") }
                refused = try await Self.refusals(&connection)
                #expect(refused.filter { $0.token == "address" }.count == 120, "the next minute's budget")
                #expect(refused.allSatisfy { ($0.detail ?? "").utf8.count <= 300 }, "\(refused.map(\.detail))")
            }
        }
    }

    /// Channel parameters: 10 KB; 10 KB then control characters, raw (refused before any route,
    /// 400, so never recorded) or percent-encoded (kept encoded); a letter with 10,000 combining marks (one
    /// character); each with the status it gets.
    static let hostileChannels: [(name: String, status: Int)] = [
        (String(repeating: "x", count: 10_000), 403),
        (String(repeating: "x", count: 10_000) + "%0A%1B[31m\u{1B}]0;pwned\u{07}\r\nGET /v1/audit", 400),
        (String(repeating: "x", count: 10_000) + "%0A%1B[31m", 403),
        ("e" + String(repeating: "\u{301}", count: 10_000), 403),
    ]

    /// A request's path reaches the trail cut and escaped: a hostile channel name leaves one
    /// short line, or nothing.
    @Test("a refused request's hostile path is stored cut and escaped", arguments: hostileChannels)
    func hostilePathInTrail(name: String, status: Int) async throws {
        try await InProcessServer.with(configuration: try Self.configuration(clock: TestClock())) { server in
            try await server.connection { connection in
                let reply = try await connection.request("POST", "/v1/channels/\(name)/promote", headers: [("Authorization", "Bearer ci-secret")])
                #expect(reply.status == status, "\(reply.status)")
                #expect(reply.body.count < 2_000, "the answer does not echo the path: \(reply.body.count) bytes")
                let refused = try await Self.refusals(&connection)
                #expect(refused.count == (status == 403 ? 1 : 0), "\(refused.count) records")
                for record in refused {
                    let detail = record.detail ?? ""
                    #expect(detail.utf8.count <= 1_000, "\(detail.utf8.count) bytes")
                    #expect(!detail.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(detail)")
                    #expect(record.channel == nil, "no channel name: \(String(describing: record.channel?.prefix(40)))")
                }
            }
        }
    }
}
