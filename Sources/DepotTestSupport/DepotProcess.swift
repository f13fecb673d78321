import DepotTestFixtures
import Foundation
import Testing

/// The built `depot` executable, run as a user would run it, for the length of a closure.
public struct DepotProcess: Sendable {
    /// `.build/<config>/depot`, beside the test bundle.
    public static var executable: URL {
        var folder = Bundle.main.bundleURL
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("depot")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/depot")
    }

    public let process: ChildProcess
    /// Everything the process wrote to standard output and standard error.
    public let logFile: URL

    /// Starts `depot` with `arguments` and `environment` added to the current one (less any
    /// `DEPOT_` variables of the test run itself), runs `body` with it, and kills it if it still
    /// runs once `body` has returned or thrown.
    /// With a `wrapper` (e.g. `["/usr/bin/strace", "-o", "trace"]`), that program is started
    /// with `depot` and its arguments after its own.
    public static func with<Result: Sendable>(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL,
        wrapper: [String] = [],
        _ body: (DepotProcess) async throws -> Result
    ) async throws -> Result {
        let command = wrapper + [executable.path] + arguments
        return try await launch(
            command[0],
            Array(command.dropFirst()),
            environment: variables(adding: environment, in: directory),
            in: directory,
            body
        )
    }

    /// The variables a `depot` command of a test runs with, spawned or in process
    /// (``InProcessCLI``): the test run's own less any `DEPOT_` ones, then `added`. The publish
    /// index goes below the test's folder (a hidden one), not the user's cache. Brotli at quality
    /// 11 costs seconds a megabyte: a server makes no variants unless the test's environment
    /// turns them on.
    public static func variables(adding added: [String: String], in directory: URL) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DEPOT_") }
            .merging([
                "XDG_CACHE_HOME": directory.appendingPathComponent(".cache").path, "DEPOT_VARIANTS_BROTLI": "false", "DEPOT_VARIANTS_ZSTD": "false",
            ]) { $1 }
            .merging(added) { $1 }
    }

    /// A command's log (standard output and error as one) as its output and its `Error:` lines.
    public static func splitErrors(_ log: String) -> (output: String, errors: String) {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        let errors = lines.filter { $0.hasPrefix("Error:") }.joined(separator: "\n")
        let output = lines.filter { !$0.hasPrefix("Error:") }.joined(separator: "\n")
        return (output, errors)
    }

    /// Starts `depot serve` in a new temporary folder `root` (`--public public --data data`)
    /// that accepts ``InProcessCLI/token`` and, from `environment`, any other setting; runs
    /// `body` with the folder and the server's URL, then stops the server and expects it to exit
    /// cleanly: for the suites whose subject is a process (a `depot` killed at every step, its
    /// peak memory), which need a server on a socket.
    public static func withServer(environment: [String: String] = [:], _ body: (URL, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: ["DEPOT_PUBLISH_TOKENS": InProcessCLI.token].merging(environment) { $1 },
                in: root
            ) { depot in
                let port = try await depot.waitForPort()
                try await body(root, "http://127.0.0.1:\(port)")
                #expect(try await depot.stop() == 0)
            }
        }
    }

    /// Runs the `depot` binary with `arguments` in `directory` (with `token` as `DEPOT_TOKEN`)
    /// and waits for it: its exit status, and its output apart from its `Error:` lines.
    public static func command(
        _ arguments: [String],
        token: String? = InProcessCLI.token,
        in directory: URL
    ) async throws -> (status: Int32, output: String, errors: String) {
        let (status, log) = try await run(arguments, environment: token.map { ["DEPOT_TOKEN": $0] } ?? [:], in: directory)
        let (output, errors) = splitErrors(log)
        return (status, output, errors)
    }

    /// Runs `depot` with `arguments` (as ``with(_:environment:in:wrapper:_:)``) to its end: its
    /// exit status, and what it printed.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL,
        // Hang guard: slowest seen 25 s under two busy loops (the slowest CLI test, PackSyncTests).
        timeout: Duration = .seconds(300)
    ) async throws -> (status: Int32, log: String) {
        try await with(arguments, environment: environment, in: directory) { depot in
            (try await depot.waitForExit(timeout: timeout), depot.log)
        }
    }

    /// Starts a program with its output going to a log file in `directory`, for the length of
    /// `body`: another of the package's executables, or a tool.
    public static func launch<Result: Sendable>(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]?,
        in directory: URL,
        _ body: (DepotProcess) async throws -> Result
    ) async throws -> Result {
        let logFile = directory.appendingPathComponent("run-\(UUID().uuidString).log")
        let log = open(logFile.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path]) }
        defer { close(log) }
        return try await ChildProcess.with(executable, arguments, environment: environment, in: directory, output: log, error: log) {
            try await body(DepotProcess(process: $0, logFile: logFile))
        }
    }

    public var isRunning: Bool { process.isRunning }

    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits for the "listening on" log line, then for the public folder to be served (a first
    /// start scans it after listening), and returns the port; throws if the process ends first,
    /// or has not listened within `timeout` (a guard against a hung start).
    // Hang guard: slowest seen 25 s under two busy loops (the slowest CLI test, PackSyncTests).
    public func waitForPort(timeout: Duration = .seconds(300)) async throws -> Int {
        let port = try await poll(for: timeout) { () throws -> Int? in
            let log = log
            if let range = log.range(of: #"listening on [0-9.]+:([0-9]+)"#, options: .regularExpression) {
                return Int(log[range].split(separator: ":").last!)!
            }
            if let status = process.terminationStatus { throw DepotProcessError.exited(status: status, log: log) }
            return nil
        }
        guard let port else { throw DepotProcessError.timedOut(log: log) }
        try await RawHTTPConnection.with(port: port) { try await $0.waitForPublicFolder() }
        return port
    }

    /// Waits for the process to end and returns its exit status.
    // Hang guard: slowest seen 25 s under two busy loops (the slowest CLI test, PackSyncTests).
    public func waitForExit(timeout: Duration = .seconds(300)) async throws -> Int32 {
        do {
            return try await process.waitForExit(timeout: timeout)
        } catch is ChildProcessError {
            throw DepotProcessError.timedOut(log: log)
        }
    }

    /// Sends SIGTERM and waits for a graceful exit.
    public func stop() async throws -> Int32 {
        process.send(SIGTERM)
        return try await waitForExit()
    }

    /// Sends SIGKILL.
    public func kill() {
        process.send(SIGKILL)
    }
}

public enum DepotProcessError: Error {
    case exited(status: Int32, log: String)
    case timedOut(log: String)
}

extension DepotProcess {
    /// Runs any program to completion and returns what it printed (standard output and error).
    public static func run(_ executable: String, _ arguments: [String], in directory: URL) async throws -> String {
        // A `depot publish` it runs (through `script`, say) keeps its index below the test's folder.
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": directory.appendingPathComponent(".cache").path]) { $1 }
        return try await launch(executable, arguments, environment: environment, in: directory) { program in
            // Hang guard: slowest seen 25 s under two busy loops (the slowest CLI test).
            _ = try await program.waitForExit(timeout: .seconds(300))
            return program.log
        }
    }
}
