import DepotAPI
import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Reports through a trusted proxy (127.0.0.1) that forwards each client's address, as issue 57
/// found them (defects 10 and 13): a forwarded source port is no network of its own, and the
/// per-second limit holds for an IPv6 /64, not per address string. A real server on its test
/// clock, in process, its requests from 127.0.0.1 (``InProcessServer/peer``); each request names
/// its client in `X-Forwarded-For`.
@Suite("Report networks behind a proxy")
struct ReportProxyNetworkTests {
    /// Rollouts and reports on `clock`, 127.0.0.1 a trusted proxy, every install of a network
    /// counted (what holds a rollout is then the count of networks alone), and reports counted
    /// only by the scheduler's ticks, each of which counts and then weighs.
    static func configuration(_ clock: TestClock) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.publish.tokens = [InProcessServer.token]
        configuration.channels = ChannelSigner(keys: [RolloutFleetTests.key])
        configuration.rollouts = RolloutConfiguration(tickInterval: .milliseconds(50), clock: { clock.now })
        configuration.trustedProxies = ["127.0.0.1"]
        configuration.reports.installsPerNetwork = 1_000_000
        configuration.reports.flushInterval = .seconds(86_400)
        return configuration
    }

    static func withServer(_ body: @Sendable (InProcessServer, TestClock) async throws -> Void) async throws {
        let clock = TestClock()
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try await InProcessServer.withDataDirectory(data, configuration: configuration(clock), from: "127.0.0.1") { server in
                try await body(server, clock)
            }
        }
    }

    @Test(
        "30 failed reports from one host on 6 source ports, forwarded with the port: one network, the rollout runs on; 5 more networks failing roll it back"
    )
    func sourcePorts() async throws {
        try await Self.withServer { server, _ in
            let (_, two) = try await RolloutFleetTests.twoReleases(server)
            _ = try await RolloutFleetTests.startRollout(server, minReports: 3)
            // The attack as found: one host, 5 failing installs behind each of 6 source ports.
            for port in 40001...40006 {
                try await RolloutFleetTests.report(server, RolloutFleetTests.failures(5, release: two), from: "203.0.113.7:\(port)")
            }
            _ = try await RolloutFleetTests.waitFor(server, "30 failures counted") { $0.reports.failed == 30 }
            // A report taken after a tick counted the 30 is counted by a later tick: once it is,
            // the tick that weighed the 30 is over.
            let marker = InstallID.random()
            let applied = ReportBatch.Report(release: two, install: marker.reportHash(release: two), kind: "applied")
            try await RolloutFleetTests.report(server, [applied], from: "203.0.113.7:40007")
            let held = try await RolloutFleetTests.waitFor(server, "a later tick") { $0.reports.applied == 1 || $0.state != "running" }
            #expect(held.state == "running" && held.percent == 10, "\(held.reason)")
            #expect(held.gate?.networks == 1 && held.gate?.decision == "wait", "\(String(describing: held.gate))")

            // The control: five more networks, one host each, behind a port too: six networks.
            let others = ["198.51.100.7:40001", "192.0.2.7:40001", "198.18.0.7:40001", "[2001:db8:1::7]:40001", "[2001:db8:2::7]:40001"]
            for address in others {
                try await RolloutFleetTests.report(server, RolloutFleetTests.failures(5, release: two), from: address)
            }
            let rolledBack = try await RolloutFleetTests.waitFor(server, "rolled back") { $0.state == "rolled-back" }
            // The scheduler ticks on its own (every 50 ms of real time) while the five networks'
            // reports arrive: the tick that rolls back is the first to see the gate's networks,
            // whichever that is. What the row proves is that it needed failures from at least
            // the gate's networks, never more than the six there are (the host's ports are one).
            let networks = try #require(Self.networks(in: rolledBack.reason), "\(rolledBack.reason)")
            #expect(rolledBack.reason.hasSuffix("rolled back"), "\(rolledBack.reason)")
            #expect((ReportConfiguration().gateNetworks...6).contains(networks), "\(rolledBack.reason)")
        }
    }

    /// The count of networks a gate's reason names ("… from 4 networks; rolled back").
    static func networks(in reason: String) -> Int? {
        guard let match = reason.firstMatch(of: /from (\d+) networks/) else { return nil }
        return Int(match.1)
    }

    @Test(
        "60 addresses of one IPv6 /64 in one second of the server's clock: one address's limit admitted, the rest 429; another /64 is admitted"
    )
    func oneSubnet() async throws {
        try await Self.withServer { server, clock in
            let limit = ReportConfiguration().perAddressPerSecond
            #expect(limit == 20)
            let body = Array(try JSONEncoder().encode(ReportBatch(reports: [])))
            let post = { @Sendable (address: String) async throws -> Int in
                try await server.withConnection { connection in
                    try await connection.request("POST", "/v1/reports", headers: [("X-Forwarded-For", address)], body: body).status
                }
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for host in 1...60 { group.addTask { try await post("2001:db8:0:1::\(String(host, radix: 16))") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 202 }.count == limit, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 60 - limit, "\(statuses)")
            // Another /64 has a limit of its own; the next second admits the first again.
            #expect(try await post("2001:db8:0:2::1") == 202)
            #expect(try await post("2001:db8:0:1::ffff") == 429)
            clock.advance(by: 1)
            #expect(try await post("2001:db8:0:1::ffff") == 202)
        }
    }
}
