import DepotAPI
import DepotHTTP
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// The audit trail after a scripted sequence, read back with `depot audit --json` as an
/// operator would: exactly the changes made and the refusal, with their tokens' names.
@Suite("Audit trail")
struct AuditTrailTests {
    static let tokens = [
        "name=ci publish=stable token=ci-secret",
        "name=manager promote=stable rollouts=stable read token=manager-secret",
    ]

    static func send(
        _ server: some TestServer,
        _ secret: String,
        _ method: String,
        _ path: String,
        json: (any Encodable)? = nil,
        body: String? = nil
    )
        async throws -> RawHTTPResponse
    {
        let bytes = try json.map { Array(try JSONEncoder().encode($0)) } ?? body.map { Array($0.utf8) }
        return try await server.withConnection {
            try await $0.request(method, path, headers: [("Authorization", "Bearer \(secret)")], body: bytes)
        }
    }

    @Test("publish, promote, a refusal, rollout start, the gate's halt and a rollback: depot audit --json lists exactly those, newest first")
    func scriptedSequence() async throws {
        let clock = TestClock()
        var configuration = RolloutFleetTests.configuration(clock)
        configuration.accessTokens = try Self.tokens.enumerated().map { try AccessToken(entry: $0.element, position: $0.offset + 1) }
        try await withTemporaryDirectory { root in
            // `depot audit` runs in process (InProcessCLI) and reaches this server by its host.
            try await InProcessServer.withDataDirectory(root.appendingPathComponent("data"), configuration: configuration, from: "127.0.0.1") {
                server in
                #expect(try await Self.send(server, "ci-secret", "PUT", "/v1/files/a.txt", body: "one\n").status == 201)
                #expect(try await Self.send(server, "ci-secret", "PUT", "/v1/files/a.txt", body: "two\n").status == 201)
                // The same content again changes nothing, and records nothing.
                #expect(try await Self.send(server, "ci-secret", "PUT", "/v1/files/a.txt", body: "two\n").status == 200)
                let promoted = try await Self.send(
                    server,
                    "manager-secret",
                    "POST",
                    "/v1/channels/stable/promote",
                    json: PromoteRequest(release: "1")
                )
                #expect(promoted.status == 200, "\(promoted.bodyText)")
                let refused = try await Self.send(server, "ci-secret", "POST", "/v1/channels/stable/rollback")
                #expect(refused.status == 403 && refused.bodyText.contains("The token ci may not promote or roll back stable"), "\(refused.bodyText)")

                let request = RolloutRequest(
                    release: "2",
                    steps: [10, 100],
                    everySeconds: 3600,
                    maxFailureRate: 0.02,
                    minReports: 100,
                    autoRollback: false
                )
                let started = try await Self.send(server, "manager-secret", "POST", "/v1/channels/stable/rollout", json: request)
                #expect(started.status == 201, "\(started.bodyText)")
                let releases = try await Self.send(server, "manager-secret", "GET", "/v1/releases").decoded(ReleaseList.self).releases
                let (one, two) = (releases.first { $0.number == 1 }!.id, releases.first { $0.number == 2 }!.id)
                var fleet = RolloutFleetTests.Fleet(count: RolloutFleetTests.installCount, holding: one)
                _ = try fleet.poll(try await RolloutFleetTests.document(server))
                let rolledOut = fleet.installs.filter { $0.holding == two }.map(\.id)
                try await RolloutFleetTests.report(server, rolledOut, release: two) { $0 % 10 < 3 ? "failed" : "applied" }
                _ = try await RolloutFleetTests.waitFor(server, "a halt") { $0.state == "halted" }
                let back = try await Self.send(server, "manager-secret", "POST", "/v1/channels/stable/rollout/rollback")
                #expect(back.status == 200, "\(back.bodyText)")

                let audit = try await InProcessCLI.run(["audit", "--json", "--server", server.url("")], token: "manager-secret", in: root)
                #expect(audit.status == 0, "\(audit.errors)")
                let records = try APIJSON.decode(AuditList.self, from: Data(audit.output.utf8)).records
                let expected: [(token: String, action: String, release: Int64?)] = [
                    ("manager", "rollout-rollback", 2),
                    ("rollout-gate", "gate-halt", 2),
                    ("manager", "rollout-start", 2),
                    ("ci", "refused", nil),
                    ("manager", "promote", 1),
                    ("ci", "publish", 2),
                    ("ci", "publish", 1),
                ]
                #expect(
                    records.map { "\($0.token) \($0.action) \($0.release.map(String.init) ?? "-")" }
                        == expected.map { "\($0.token) \($0.action) \($0.release.map(String.init) ?? "-")" }
                )
                #expect(records.allSatisfy { $0.channel == "stable" })
                #expect(records.filter { $0.token != "rollout-gate" }.allSatisfy { $0.client == "127.0.0.1" })
                // Serials rise with each change (the refusal changed nothing and has none).
                let serials = records.reversed().compactMap(\.serial)
                #expect(serials.count == 6 && serials == serials.sorted() && Set(serials).count == 6, "\(serials)")
                #expect(records.first { $0.action == "refused" }?.detail == "POST /v1/channels/stable/rollback needs promote=stable")
                // No token anywhere in the trail.
                #expect(!audit.output.contains("secret"))

                let byToken = try await InProcessCLI.run(["audit", "--token", "ci", "--server", server.url("")], token: "manager-secret", in: root)
                #expect(byToken.output.split(separator: "\n").count == 3, "\(byToken.output)")
                let refusedRead = try await InProcessCLI.run(["audit", "--server", server.url("")], token: "ci-secret", in: root)
                #expect(refusedRead.status == 1 && refusedRead.errors.contains("may not read the admin API"), "\(refusedRead.errors)")
            }
        }
    }

    @Test("a root served for the first time is recorded once: a restart adds nothing, a new root adds its record")
    func rootsServed() async throws {
        let wallClock = Int64(Date().timeIntervalSince1970)
        let roots = try (Int64(1)...2).map { version in
            let root = RootTrustTests.root(version: version, expires: wallClock + 86_400)
            return ChannelSigner.Root(bytes: Array(try JSONEncoder().encode(root)), document: root)
        }
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            var served: [Int] = []
            for chain in [[roots[0]], [roots[0]], roots] {
                var configuration = ServerConfiguration()
                configuration.publish.tokens = [InProcessServer.token]
                configuration.channels = try ChannelSigner(keys: Array(RootTrustTests.channelKeys.prefix(2)), roots: chain)
                let records = try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                    try await Self.send(server, InProcessServer.token, "GET", "/v1/audit").decoded(AuditList.self).records
                }
                #expect(records.allSatisfy { $0.action == "root-served" && $0.token == "server" })
                served.append(records.count)
                #expect(records.first?.detail?.hasPrefix("root \(chain.count), sha256 ") == true, "\(records)")
            }
            #expect(served == [1, 1, 2])
        }
    }

    @Test("a refusal stores a few hundred bytes at most, names only a valid channel, escapes what it quotes; a token's refusals are budgeted")
    func hostileRefusals() async throws {
        var configuration = ServerConfiguration()
        configuration.accessTokens = [try AccessToken(entry: "name=ci publish=beta token=ci-secret", position: 1)]
        // The trail's clock stands still: every refusal falls in one minute of the budget.
        configuration.rollouts = RolloutConfiguration(clock: { HTTPDate(secondsSince1970: 1_795_435_200) })
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let huge = String(repeating: "x", count: 1 << 20)
            let forged = "beta-x\nSat, 28 Nov 2026 09:00:00 GMT\tops\tpromote\tstable"
            for channel in [huge, forged] {
                let body = try JSONEncoder().encode(CommitRequest(channel: channel, files: []))
                let refused = try await Self.send(server, "ci-secret", "POST", "/v1/releases", body: String(decoding: body, as: UTF8.self))
                #expect(refused.status == 403)
            }
            let path = "/v1/channels/" + String(repeating: "y", count: 70_000) + "/promote"
            #expect(try await Self.send(server, "ci-secret", "POST", path).status == 403)
            let records = try await Self.send(server, InProcessServer.token, "GET", "/v1/audit").decoded(AuditList.self).records
            #expect(records.count == 3)
            for record in records {
                #expect(record.channel == nil, "\(record)")
                #expect((record.detail ?? "").utf8.count < 400 && !(record.detail ?? "").contains("\n"), "\(record.detail ?? "")")
            }
            // Past the budget (60 a minute for a token), refusals are counted in the log, not stored.
            for _ in 0..<70 { _ = try await Self.send(server, "ci-secret", "GET", "/v1/releases") }
            let after = try await Self.send(server, InProcessServer.token, "GET", "/v1/audit?limit=1000").decoded(AuditList.self).records
            #expect(after.count == 60, "\(after.count)")
        }
    }
}
