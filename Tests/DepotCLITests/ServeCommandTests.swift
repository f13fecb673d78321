import DepotTestSupport
import Foundation
import Testing

/// `depot serve` as a user starts it: options, environment, config file, and errors.
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
}
