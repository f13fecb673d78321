import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// What an operator reads on the first day (issue 56, items 10 and 12): the start-up summary
/// and the shutdown line, a quick start with only the binary, the audit trail's count of a
/// publish, and what `depot release ls` says an app must know of a release.
@Suite("First day: what the operator reads")
struct FirstDayTests {
    @Test(
        "depot serve in an empty folder: the default ./public is made; one start-up line says signing, dashboard, tokens; SIGTERM says it stopped; a restart finds nothing left over"
    )
    func startAndStop() async throws {
        try await withTemporaryDirectory { root in
            // No public/, no token, no key: as a new user's first run of the binary.
            for run in 1...2 {
                try await DepotProcess.with(["serve", "--port", "0"], environment: [:], in: root) { depot in
                    let port = try await depot.waitForPort()
                    // A publish to a server without tokens is refused, as the summary says.
                    try root.write(Data("one\n".utf8), to: "site/a.txt")
                    let refused = try await InProcessCLI.run(["publish", "site", "--server", "http://127.0.0.1:\(port)"], in: root)
                    #expect(refused.status != 0)
                    #expect(try await depot.stop() == 0)
                    let log = depot.log
                    let starting = try #require(log.split(separator: "\n").first { $0.contains("Depot starting") }, "\(log)")
                    #expect(starting.contains("signing=off: channel documents are unsigned"), "\(starting)")
                    #expect(starting.contains("dashboard=off"), "\(starting)")
                    #expect(starting.contains("tokens=none: the publishing API (/v1) answers 401 until access.tokens is set"), "\(starting)")
                    #expect(log.contains("Depot stopped"), "\(log)")
                    #expect(log.contains("Made the public folder") == (run == 1), "\(log)")
                    #expect(!log.contains("left by an earlier run"), "a clean stop leaves nothing to remove: \(log)")
                }
            }
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("public").path, isDirectory: &isFolder) && isFolder.boolValue)
        }
    }

    @Test("the start-up line names the tokens loaded (never a token), the signing key's id and the dashboard")
    func summaryNamesWhatLoaded() async throws {
        try await withTemporaryDirectory { root in
            let key = root.appendingPathComponent("channel.key")
            let made = try await InProcessCLI.run(["keygen", "--out", key.path], token: nil, in: root)
            let keyID = try #require(made.output.split(separator: "(id ").last?.split(separator: ")").first.map(String.init), "\(made.output)")
            let environment = [
                "DEPOT_ACCESS_TOKENS": "name=ci publish=stable token=ci-secret-1, name=ops all token=ops-secret-2",
                "DEPOT_CHANNELS_SIGNING_KEY_FILE": key.path,
                "DEPOT_DASHBOARD_ENABLED": "true",
            ]
            for name in ["a", "b"] { try root.write(Data("\(name)\n".utf8), to: "site/\(name).txt") }
            // Run 1 publishes (its uploads leave shard folders in data/tmp); run 2 starts after a
            // clean stop; run 3 after an upload cut short (a file planted in data/tmp).
            for run in 1...3 {
                if run == 3 { try root.write(Data("cut short".utf8), to: "data/tmp/ab/upload-0") }
                try await DepotProcess.with(["serve", "--port", "0"], environment: environment, in: root) { depot in
                    let port = try await depot.waitForPort()
                    if run == 1 {
                        let published = try await InProcessCLI.run(
                            ["publish", "site", "--server", "http://127.0.0.1:\(port)"],
                            token: "ci-secret-1",
                            in: root
                        )
                        #expect(published.status == 0, "\(published.errors)")
                    }
                    #expect(try await depot.stop() == 0)
                    let starting = try #require(depot.log.split(separator: "\n").first { $0.contains("Depot starting") }, "\(depot.log)")
                    #expect(starting.contains("signing=on, key \(keyID)"), "\(starting)")
                    #expect(starting.contains("tokens=ci, ops"), "\(starting)")
                    #expect(starting.contains("dashboard=on, at /dashboard"), "\(starting)")
                    #expect(!depot.log.contains("secret"), "\(depot.log)")
                    let leftovers = depot.log.split(separator: "\n").first { $0.contains("left by an earlier run") }
                    #expect(run == 3 ? leftovers?.contains("count=1") == true : leftovers == nil, "run \(run): \(depot.log)")
                }
            }
        }
    }

    @Test(
        "a publish that changes one file of five: the audit trail says 1 file changed of the 5 in the release; release ls shows critical and the app version it needs"
    )
    func auditAndReleaseList() async throws {
        try await InProcessCLI.withServer { root, server in
            for name in ["a", "b", "c", "d", "e"] { try root.write(Data("\(name) one\n".utf8), to: "site/\(name).txt") }
            try await InProcessCLI.publish(["site"], to: server, in: root)
            try root.write(Data("a two\n".utf8), to: "site/a.txt")
            let second = try await InProcessCLI.run(
                ["publish", "site", "--server", server, "--critical", "--minimum-client-version", "3.0"],
                in: root
            )
            #expect(second.status == 0, "\(second.errors)")

            let audit = try await InProcessCLI.run(["audit", "--json", "--server", server], in: root)
            let records = try APIJSON.decode(AuditList.self, from: Data(audit.output.utf8)).records
            #expect(records.first?.detail == "1 file changed, 0 removed, 5 in the release", "\(records)")

            let listed = try await InProcessCLI.run(["release", "ls", "--server", server], in: root)
            let lines = listed.output.split(separator: "\n")
            let two = try #require(lines.first { $0.hasPrefix("2\t") }, "\(listed.output)")
            let one = try #require(lines.first { $0.hasPrefix("1\t") }, "\(listed.output)")
            #expect(two.contains("\t5 files\t") && two.contains("\tcritical, needs app 3.0\t← stable"), "\(two)")
            #expect(!one.contains("critical") && !one.contains("needs app"), "\(one)")
        }
    }
}
