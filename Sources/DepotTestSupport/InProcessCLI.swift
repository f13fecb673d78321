import DepotCommands
import DepotTestFixtures
import Foundation
import Synchronization
import Testing

/// The `depot` command as the CLI tests run it, in process: a Depot application answering
/// through its router (``InProcessServer``), and each command run by the binary's own runner
/// (``DepotCommandLine``) in a ``CommandEnvironment`` of the test's (its folder, its variables,
/// its output). No socket and no child process: the suites whose subject is a process (a kill,
/// a signal, its memory, `depot serve` as an operator starts it) use ``DepotProcess``.
public enum InProcessCLI {
    /// The publish token ``withServer(environment:_:)``'s server accepts.
    public static let token = "cli-test-token"

    /// Runs a server on a new temporary folder `root` (its folders `root/public` and
    /// `root/data`) that accepts `publishToken` (none: `nil`) and, from `environment`, any other
    /// setting, read as `depot serve` reads them (``ServerSettings``); runs `body` with the folder
    /// and the server's URL once it serves its public folder.
    public static func withServer(
        environment: [String: String] = [:],
        publishToken: String? = token,
        _ body: (URL, String) async throws -> Void
    ) async throws {
        try await withServer(environment: environment, publishToken: publishToken) { root, server, _ in try await body(root, server) }
    }

    /// ``withServer(environment:publishToken:_:)``, with the server itself for `body`, for the
    /// requests a test sends it (``InProcessServer/connection(_:)``); its requests come from
    /// `peer` (none: from no address) and it logs to `log` (none: warnings and errors, unseen).
    public static func withServer(
        environment: [String: String] = [:],
        publishToken: String? = token,
        from peer: String? = nil,
        log: ServerLog? = nil,
        _ body: (URL, String, InProcessServer) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await serve(in: root, environment: environment, publishToken: publishToken, from: peer, log: log) { server, app in
                try await body(root, server, app)
            }
        }
    }

    /// Runs a server on the folders `root/public` (which must exist) and `root/data` (`data`,
    /// relative to `root`), as ``withServer(environment:publishToken:_:)`` does, for `body`, with
    /// its URL and the server; its requests come from `peer`, and it logs to `log`.
    public static func serve(
        in root: URL,
        data: String = "data",
        environment: [String: String] = [:],
        publishToken: String? = token,
        from peer: String? = nil,
        log: ServerLog? = nil,
        _ body: (String, InProcessServer) async throws -> Void
    ) async throws {
        let tokens = publishToken.map { ["DEPOT_PUBLISH_TOKENS": $0] } ?? [:]
        let variables = DepotProcess.variables(adding: tokens.merging(environment) { $1 }, in: root)
        let settings = CommandEnvironment(output: .standardOutput, errors: .standardError, variables: variables, directory: root)
        let configuration = try await ServerSettings.configuration(in: settings)
        let (publicDirectory, dataDirectory) = (root.appendingPathComponent("public"), root.appendingPathComponent(data))
        // Called once, before `run` returns, as the spawned server's body was: a test's body
        // may capture its own state, as it did then.
        nonisolated(unsafe) let body = body
        try await InProcessServer.$peer.withValue(peer) {
            try await TestApplication.$logger.withValue(log?.logger) {
                try await InProcessServer.run(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory) { server in
                    try await server.withConnection { try await $0.waitForPublicFolder() }
                    try await body(server.url(""), server)
                }
            }
        }
    }

    /// `depot publish` with `arguments` (its paths and options) to `server`, run in `directory`;
    /// requires it to succeed. The one way the CLI tests publish when publishing is not the subject.
    public static func publish(_ arguments: [String], to server: String, in directory: URL) async throws {
        let result = try await run(["publish"] + arguments + ["--server", server], in: directory)
        try #require(result.status == 0, "depot publish \(arguments.joined(separator: " ")): \(result.errors)")
    }

    /// Runs `depot` with `arguments` in process, in `directory`, with no token (as
    /// ``DepotProcess/run(_:environment:in:timeout:)`` runs the binary): its exit status, and
    /// its log (standard output and error as one).
    public static func log(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL
    ) async throws -> (status: Int32, log: String) {
        try await logged(arguments, token: nil, environment: environment, in: directory)
    }

    /// Runs `depot` with `arguments` in process, in `directory` (its relative paths resolved
    /// there), with the variables a ``DepotProcess`` is given (and `token` as `DEPOT_TOKEN`): its
    /// exit status, and its output (standard output and error, as one log) apart from its
    /// `Error:` lines. `isTerminal`: as if its standard error were a terminal (progress bars).
    public static func run(
        _ arguments: [String],
        token: String? = token,
        environment: [String: String] = [:],
        isTerminal: Bool = false,
        in directory: URL
    ) async throws -> (status: Int32, output: String, errors: String) {
        let (status, log) = try await logged(arguments, token: token, environment: environment, isTerminal: isTerminal, in: directory)
        let (output, errors) = DepotProcess.splitErrors(log)
        return (status, output, errors)
    }

    /// Runs `depot` with `arguments` in process: its exit status and its log (`log`, as it
    /// writes it), stopped when `stop` returns (none: it runs to its end), saying why.
    static func logged(
        _ arguments: [String],
        token: String?,
        environment: [String: String],
        isTerminal: Bool = false,
        log: CommandLog = CommandLog(),
        stop: (@Sendable () async -> String)? = nil,
        in directory: URL
    ) async throws -> (status: Int32, log: String) {
        let writer = TextWriter { text in log.text.withLock { $0 += text } }
        let variables = DepotProcess.variables(adding: (token.map { ["DEPOT_TOKEN": $0] } ?? [:]).merging(environment) { $1 }, in: directory)
        let status = try await HTTPTransports.withClient { network in
            let environment = CommandEnvironment(
                output: writer,
                errors: writer,
                variables: variables,
                directory: directory,
                isTerminal: isTerminal,
                transport: InProcessTransport(network: network),
                stop: stop
            )
            return await DepotCommandLine.run(arguments, in: environment)
        }
        return (status, log.text.withLock { $0 })
    }
}

/// What a command run in process wrote, standard output and error as one log.
final class CommandLog: Sendable {
    let text = Mutex("")
}
