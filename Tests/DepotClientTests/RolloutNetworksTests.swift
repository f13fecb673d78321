import DepotAPI
import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// A fleet behind one network (an office, a test lab, one carrier NAT) against a server that
/// asks the standard 3 networks (`reports.gateNetworks`): the rollout started with its own
/// minimum (`minNetworks: 1`) advances; the one started without waits, and says why in its
/// status, the list of every channel's rollout, and the dashboard's data and page.
@Suite("Rollout gate networks")
struct RolloutNetworksTests {
    static let readToken = "networks-read-token"

    @Test(
        "installs reporting from one network advance a rollout started with minNetworks 1; without it the status and the dashboard say why it waits"
    )
    func oneNetwork() async throws {
        let clock = TestClock()
        var configuration = RolloutFleetTests.configuration(clock)
        // The server's own setting, as shipped: 3 networks.
        configuration.reports.gateNetworks = 3
        configuration.dashboard.enabled = true
        configuration.dashboard.readTokens = [Self.readToken]
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                let (_, two) = try await RolloutFleetTests.twoReleases(server)
                #expect(try await RolloutFleetTests.send(server, "POST", "/v1/channels/edge/promote", json: ["release": "1"]).status == 200)
                for (channel, minNetworks) in [("stable", Int?.none), ("edge", 1)] {
                    let request = RolloutRequest(
                        release: "2",
                        steps: [10, 50, 100],
                        everySeconds: 3600,
                        maxFailureRate: 0.02,
                        minReports: 3,
                        autoRollback: true,
                        minNetworks: minNetworks
                    )
                    let reply = try await RolloutFleetTests.send(server, "POST", "/v1/channels/\(channel)/rollout", json: request)
                    #expect(reply.status == 201, "\(reply.bodyText)")
                    #expect(try reply.decoded(RolloutInfo.self).minNetworks == minNetworks)
                }
                // Twelve installs of each channel apply the release, all from 127.0.0.1: one network.
                for channel in ["stable", "edge"] {
                    let reports = (0..<12).map { _ in
                        let install = InstallID.random()
                        return ReportBatch.Report(release: two, install: install.reportHash(release: two), kind: "applied", channel: channel)
                    }
                    let sent = try await RolloutFleetTests.send(server, "POST", "/v1/reports", json: ReportBatch(reports: reports))
                    #expect(sent.status == 202, "\(sent.bodyText)")
                }
                clock.advance(by: 3600)

                // With its own minimum of one network, the step advances.
                let edge = try await Self.waitFor(server, "edge", "50%") { $0.percent == 50 }
                #expect(edge.reason.contains("the gate held"), "\(edge.reason)")

                // Without, it waits, and says for what: the networks, the setting, the reports.
                let stable = try await Self.waitFor(server, "stable", "a wait for networks") {
                    $0.gate?.verdict.hasPrefix("waiting: reports from") == true
                }
                let why = "waiting: reports from 1 of 3 networks (reports.gateNetworks); 12 of 3 reports"
                #expect(stable.percent == 10 && stable.state == "running")
                #expect(
                    stable.gate
                        == RolloutGateInfo(decision: "wait", verdict: why, networks: 1, minNetworks: 3, minNetworksSetting: "reports.gateNetworks")
                )

                // Every channel's rollout, the live ones first.
                let list = try await RolloutFleetTests.send(server, "GET", "/v1/rollouts").decoded(RolloutList.self)
                #expect(list.rollouts.map(\.channel) == ["edge", "stable"], "\(list.rollouts.map(\.channel))")

                // The dashboard's data and page say the same, and promise no step.
                let read = [("Authorization", "Bearer \(Self.readToken)")]
                let data = try await server.withConnection { try await $0.request("GET", "/v1/admin/overview", headers: read) }
                #expect(data.status == 200 && data.bodyText.contains(why), "\(data.bodyText.prefix(2000))")
                let page = try await server.withConnection { try await $0.request("GET", "/dashboard/", headers: read) }
                let stableCard = try #require(page.bodyText.components(separatedBy: #"data-rollout="stable""#).dropFirst().first)
                #expect(stableCard.contains(why), "\(stableCard.prefix(3000))")
                #expect(stableCard.contains("1 of 3 needed (reports.gateNetworks)"), "\(stableCard.prefix(3000))")
                #expect(!stableCard.contains("if the reports keep passing the gate") && stableCard.contains("only once the gate passes"))
                // The edge card's gate would pass but for the step's time.
                let edgeCard = try #require(page.bodyText.components(separatedBy: #"data-rollout="edge""#).dropFirst().first)
                #expect(edgeCard.contains(" of 1 needed (the rollout&#39;s --min-networks)"), "\(edgeCard.prefix(3000))")
            }
        }
    }

    static func waitFor(_ server: some TestServer, _ channel: String, _ what: String, _ done: (RolloutInfo) -> Bool) async throws -> RolloutInfo {
        let status = { try await RolloutFleetTests.send(server, "GET", "/v1/channels/\(channel)/rollout").decoded(RolloutInfo.self) }
        // Hang guard: slowest seen 1.5 s under two busy loops (the whole test).
        let reached = try await poll(every: .milliseconds(20), for: .seconds(120)) { () async throws -> RolloutInfo? in
            let info = try await status()
            return done(info) ? info : nil
        }
        if let reached { return reached }
        Issue.record("\(channel)'s rollout never got to \(what): \(try await status())")
        return try await status()
    }
}
