import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// `depot rollout` as an operator drives it, run in process against a Depot application in
/// process, with `depot sync` and `depot publish --critical --minimum-client-version` beside it.
@Suite("depot rollout")
struct RolloutCommandTests {
    @Test("start, status, pause, resume, halt and rollback each print the rollout; a sync says its side; refusals are one line and exit 1")
    func commands() async throws {
        try await InProcessCLI.withServer(environment: ["DEPOT_ROLLOUTS_TICK_SECONDS": "0.1"]) { root, server, app in
            for version in 1...2 {
                try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
                try await InProcessCLI.publish(["site"], to: server, in: root)
            }
            #expect(try await InProcessCLI.run(["release", "rollback", "--server", server], in: root).status == 0)

            let run = { (arguments: [String]) in try await InProcessCLI.run(["rollout"] + arguments + ["--server", server], in: root) }
            let started = try await run(["start", "2", "--steps", "50,100", "--every", "1h", "--max-failure-rate", "2.5%", "--min-reports", "10"])
            #expect(started.status == 0, "\(started.errors)")
            #expect(
                started.output.hasPrefix(
                    "stable: release 2 at 50% (running) over release 1; since the step: 0 applied, 0 failed, 0 healthy; started at 50%"
                ),
                "\(started.output)"
            )
            let status = try await run(["status", "--json"])
            #expect(status.output.contains(#""maxFailureRate":0.025"#) && status.output.contains(#""everySeconds":3600"#), "\(status.output)")

            let synced = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out", "--reports"], token: nil, in: root)
            #expect(synced.status == 0 && synced.output.contains("rollout: "), "\(synced.output)")
            let side = synced.output.contains("rollout: in (bucket") ? "version 2\n" : "version 1\n"
            #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == side)

            for (action, state) in [("pause", "paused"), ("resume", "running"), ("halt", "halted")] {
                let changed = try await run([action])
                #expect(changed.status == 0 && changed.output.contains("at 50% (\(state))"), "\(action): \(changed.output) \(changed.errors)")
            }
            let publishing = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(publishing.status == 1 && publishing.errors.contains("(409)") && publishing.errors.contains("rollout"), "\(publishing.errors)")
            let back = try await run(["rollback"])
            #expect(back.status == 0 && back.output.contains("(rolled-back)"), "\(back.output)")
            let after = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out"], token: nil, in: root)
            #expect(after.output.contains("release 1 of stable") && !after.output.contains("rollout:"), "\(after.output)")

            let refusals: [([String], String)] = [
                (["start", "9"], "There is no release 9"),
                (["start", "2", "--steps", "10,50"], "the last 100"),
                (["start", "2", "--max-failure-rate", "lots"], "--max-failure-rate takes a share"),
                (["pause"], "has no rollout under way"),
            ]
            for (arguments, message) in refusals {
                let refused = try await run(arguments)
                #expect(
                    refused.status == 1 && refused.errors.split(separator: "\n").count == 1 && refused.errors.contains(message),
                    "\(arguments): \(refused.errors)"
                )
            }
            // An action the API does not name: 404, and the ones it does.
            let unknown = try await app.connection {
                try await $0.request("POST", "/v1/channels/stable/rollout/explode", headers: [("Authorization", "Bearer \(InProcessCLI.token)")])
            }
            #expect(unknown.status == 404 && unknown.bodyText.contains("pause, resume, halt, rollback"), "\(unknown.bodyText)")
        }
    }

    @Test(
        "on one network: --min-networks 1 advances; without it, status lists every channel, live first, and says why it waits; the log says it once"
    )
    func oneNetwork() async throws {
        let depot = ServerLog()
        // Every request from 127.0.0.1, as a live server's from this machine: one network.
        try await InProcessCLI.withServer(environment: ["DEPOT_ROLLOUTS_TICK_SECONDS": "0.1"], from: "127.0.0.1", log: depot) {
            root,
            server,
            app in
            let run = { (arguments: [String]) in try await InProcessCLI.run(arguments + ["--server", server], in: root) }
            for version in 1...2 {
                try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
                #expect(try await run(["publish", "site"]).status == 0)
            }
            #expect(try await run(["release", "rollback"]).status == 0)
            #expect(try await run(["release", "promote", "1", "--channel", "edge"]).status == 0)
            let plan = ["--steps", "50,100", "--every", "1", "--min-reports", "3"]
            let stable = try await run(["rollout", "start", "2"] + plan)
            #expect(stable.status == 0, "\(stable.errors)")
            let edge = try await run(["rollout", "start", "2", "--channel", "edge", "--min-networks", "1"] + plan)
            #expect(edge.status == 0 && edge.output.contains("the rollout's --min-networks"), "\(edge.output) \(edge.errors)")
            let edgeStatus = try await run(["rollout", "status", "--channel", "edge", "--json"]).output
            let release = try JSONDecoder().decode(RolloutInfo.self, from: Data(edgeStatus.utf8)).release
            // Three installs of each channel apply release 2, all from 127.0.0.1: one network.
            for channel in ["stable", "edge"] {
                let reports = (0..<3).map { n in
                    ReportBatch.Report(release: release, install: String(repeating: "\(n)", count: 64), kind: "applied", channel: channel)
                }
                let body = try JSONEncoder().encode(ReportBatch(reports: reports))
                let sent = try await app.connection {
                    try await $0.request("POST", "/v1/reports", headers: [("Content-Type", "application/json")], body: Array(body))
                }
                #expect(sent.status == 202, "\(sent.bodyText)")
            }
            let why = "waiting: reports from 1 of 3 networks (reports.gateNetworks); 3 of 3 reports"
            // The step lasts a second: then edge completes, stable waits for networks.
            // Hang guard: slowest seen 2.8 s under two busy loops (the whole test).
            let statuses = try await poll(every: .milliseconds(100), for: .seconds(60)) { () async throws -> RolloutList? in
                let list = try JSONDecoder().decode(RolloutList.self, from: Data(try await run(["rollout", "status", "--json"]).output.utf8))
                let waiting = list.rollouts.first { $0.channel == "stable" }?.gate?.verdict == why
                return waiting && list.rollouts.first { $0.channel == "edge" }?.state == "completed" ? list : nil
            }
            let shown = try await run(["rollout", "status"]).output
            let list = try #require(statuses, "\(shown)")
            #expect(list.rollouts.map(\.channel) == ["stable", "edge"], "the live rollout first")
            let stableNow = try #require(list.rollouts.first)
            #expect(stableNow.percent == 50 && stableNow.gate?.networks == 1 && stableNow.gate?.minNetworks == 3)

            let text = try await run(["rollout", "status"])
            let lines = text.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(text.output)")
            #expect(
                lines.first?.hasPrefix("stable: release 2 at 50% (running) over release 1; since the step: 3 applied") == true,
                "\(text.output)"
            )
            #expect(lines.dropFirst().first == "  gate: \(why)", "\(text.output)")
            #expect(lines.last?.hasPrefix("edge: release 2 at 100% (completed)") == true, "\(text.output)")
            #expect(try await run(["rollout", "status", "--channel", "edge"]).output.split(separator: "\n").count == 1)

            // Ticks every 0.1 s go on: the verdict is logged once, when it changed.
            try await Task.sleep(for: .milliseconds(500))
            let said = depot.text.components(separatedBy: "verdict=\(why) [DepotServer] Rollout gate").count - 1
            #expect(said == 1, "\(depot.text)")
        }
    }

    @Test("publish --critical --minimum-client-version; sync --client-version keeps an old app on the newest release it can use")
    func compatibility() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("old\n".utf8), to: "site/a.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            try root.write(Data("new\n".utf8), to: "site/a.txt")
            let published = try await InProcessCLI.run(
                ["publish", "site", "--critical", "--minimum-client-version", "2.0", "--server", server],
                in: root
            )
            #expect(published.status == 0, "\(published.errors)")
            let old = try await InProcessCLI.run(["sync", "--server", server, "--dir", "old", "--client-version", "1.9"], token: nil, in: root)
            #expect(old.output.contains("release 1 of stable") && old.output.contains("needs app version 2.0 or later"), "\(old.output)")
            let new = try await InProcessCLI.run(["sync", "--server", server, "--dir", "new", "--client-version", "2.0.1"], token: nil, in: root)
            #expect(new.output.contains("release 2 of stable") && new.output.contains("; critical"), "\(new.output)")
            let bad = try await InProcessCLI.run(["publish", "site", "--minimum-client-version", "2.x", "--server", server], in: root)
            #expect(bad.status != 0)
        }
    }
}
