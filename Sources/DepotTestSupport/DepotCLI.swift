import DepotTestFixtures
import Foundation
import Testing

/// The `depot` command as the CLI tests run it: a real `depot serve` in a temporary folder, and
/// the binary run against it.
public enum DepotCLI {
    /// The publish token ``withServer(environment:_:)``'s server accepts.
    public static let token = "cli-test-token"

    /// Starts a server in a new temporary folder `root` that accepts ``token`` and, from
    /// `environment`, any other setting; runs `body` with the folder and the server's URL, then
    /// stops the server and expects it to exit cleanly.
    public static func withServer(environment: [String: String] = [:], _ body: (URL, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: ["DEPOT_PUBLISH_TOKENS": token].merging(environment) { $1 },
                in: root
            ) { depot in
                let port = try await depot.waitForPort()
                try await body(root, "http://127.0.0.1:\(port)")
                #expect(try await depot.stop() == 0)
            }
        }
    }

    /// `depot publish` with `arguments` (its paths and options) to `server`, run in `directory`;
    /// requires it to succeed. The one way the CLI tests publish when publishing is not the subject.
    public static func publish(_ arguments: [String], to server: String, in directory: URL) async throws {
        let result = try await run(["publish"] + arguments + ["--server", server], in: directory)
        try #require(result.status == 0, "depot publish \(arguments.joined(separator: " ")): \(result.errors)")
    }

    /// Runs `depot` with `arguments` in `directory` (with `token` as `DEPOT_TOKEN`) and waits for
    /// it: its exit status, and its output apart from its `Error:` lines.
    public static func run(
        _ arguments: [String],
        token: String? = token,
        in directory: URL
    ) async throws -> (status: Int32, output: String, errors: String) {
        let (status, log) = try await DepotProcess.run(arguments, environment: token.map { ["DEPOT_TOKEN": $0] } ?? [:], in: directory)
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        let errors = lines.filter { $0.hasPrefix("Error:") }.joined(separator: "\n")
        let output = lines.filter { !$0.hasPrefix("Error:") }.joined(separator: "\n")
        return (status, output, errors)
    }
}
