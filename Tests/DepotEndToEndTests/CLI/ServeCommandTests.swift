import DepotAPI
import DepotTestSupport
import Foundation
import Testing

// `depot serve` as an operator starts it, and what the process says: its options, its
// environment and config file, its errors, its start-up and stop lines, and what it logs of
// text a client sent. The subject is the process and its output, so each suite here spawns it.

/// `depot serve` as a user starts it: options, environment, config file, and errors; and a
/// client's hostile text in its log (issue 57, defect 14; was HostileTextTests').
@Suite("depot serve")
struct ServeCommandTests {
    /// Three public folders, each with an `id.txt` naming it.
    static func folders(in root: URL) throws {
        for name in ["file", "environment", "argument"] {
            try root.write(Data("\(name)\n".utf8), to: "\(name)/id.txt")
        }
        let config = #"{ "public": { "path": "file" }, "http": { "port": 0 }, "data": { "path": "state" } }"#
        try root.write(Data(config.utf8), to: "depot.json")
    }

    static func servedFolder(_ arguments: [String], environment: [String: String], in root: URL) async throws -> String {
        try await DepotProcess.with(["serve"] + arguments, environment: environment, in: root) { depot in
            let port = try await depot.waitForPort()
            let response = try await RawHTTPConnection.with(port: port) { try await $0.request("GET", "/id.txt") }
            #expect(try await depot.stop() == 0, "SIGTERM ends the server cleanly")
            return response.bodyText
        }
    }

    @Test("the command line wins over the environment, which wins over the config file")
    func precedence() async throws {
        try await withTemporaryDirectory { root in
            try Self.folders(in: root)
            let fromFile = try await Self.servedFolder(["--config", "depot.json"], environment: [:], in: root)
            #expect(fromFile == "file\n")
            let fromEnvironment = try await Self.servedFolder(
                [],
                environment: ["DEPOT_CONFIG": "depot.json", "DEPOT_PUBLIC_PATH": "environment"],
                in: root
            )
            #expect(fromEnvironment == "environment\n")
            let fromArgument = try await Self.servedFolder(
                ["--public", "argument"],
                environment: ["DEPOT_CONFIG": "depot.json", "DEPOT_PUBLIC_PATH": "environment"],
                in: root
            )
            #expect(fromArgument == "argument\n")
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("state/blobs").path), "data.path from the file")
        }
    }

    @Test(
        "bad input ends with one clear line and a non-zero exit",
        arguments: [
            (["--port", "70000"], "http.port must be between 0 and 65535"),
            (["--public", "no-such-folder", "--port", "0"], "The public folder no-such-folder does not exist"),
            (["--config", "missing.json"], "Cannot read the config file missing.json"),
            (["--log-level", "loud"], "Unknown log level"),
        ]
    )
    func badInput(arguments: [String], message: String) async throws {
        try await withTemporaryDirectory { root in
            try await DepotProcess.with(["serve"] + arguments, in: root) { depot in
                let status = try await depot.waitForExit()
                #expect(status != 0)
                #expect(depot.log.contains(message), "\(depot.log)")
                #expect(depot.log.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
            }
        }
    }

    @Test(
        "an empty publish token, from the environment, a config file or a token file, stops the server at start",
        arguments: [
            (["DEPOT_PUBLISH_TOKENS": ""], "publish.tokens holds an empty token"),
            (["DEPOT_PUBLISH_TOKENS": "good,"], "publish.tokens holds an empty token"),
            (["DEPOT_CONFIG": "empty-token.json"], "publish.tokens holds an empty token"),
            (["DEPOT_PUBLISH_TOKEN_FILE": "blank-tokens"], "holds no token"),
            (["DEPOT_METRICS_TOKEN": ""], "metrics.token holds an empty token"),
        ]
    )
    func emptyToken(environment: [String: String], message: String) async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data(#"{ "publish": { "tokens": ["a", ""] } }"#.utf8), to: "empty-token.json")
            try root.write(Data(" \n\n".utf8), to: "blank-tokens")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(["serve", "--port", "0"], environment: environment, in: root) { depot in
                let status = try await depot.waitForExit()
                #expect(status != 0)
                #expect(depot.log.contains(message), "\(depot.log)")
            }
        }
    }

    @Test("a failure report's reason with a forged log line and terminal escapes is logged escaped, on its own line")
    func reasonInTheLog() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(["serve", "--port", "0", "--log-level", "debug"], environment: [:], in: root) { depot in
                let port = try await depot.waitForPort()
                let forged = "disk full\n2026-11-29T00:00:00+0000 critical depot: [DepotServer] Catalog damaged\u{1B}[2J"
                let hex = String(repeating: "ab", count: 32)
                let batch = ReportBatch(reports: [.init(release: hex, install: hex, kind: "failed", reason: forged)])
                let reply = try await RawHTTPConnection.with(port: port) {
                    try await $0.request(
                        "POST",
                        "/v1/reports",
                        headers: [("Content-Type", "application/json")],
                        body: Array(try JSONEncoder().encode(batch))
                    )
                }
                #expect(reply.status == 202, "\(reply.bodyText)")
                #expect(try await depot.stop() == 0)
                let log = depot.log
                #expect(log.contains(#"reason=disk full\u{a}2026-11-29T00:00:00+0000 critical depot"#), "\(log)")
                #expect(!log.contains("\u{1B}"), "no terminal escape reaches the log")
                #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-11-29T00:00:00+0000 critical") }, "\(log)")
            }
        }
    }
}

/// What an operator reads on the first day (issue 56, items 10 and 12): the start-up summary
/// and the shutdown line of a quick start with only the binary. The audit trail's count of a
/// publish and what `depot release ls` says of a release are ReleaseCommandTests', in process.
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
}
