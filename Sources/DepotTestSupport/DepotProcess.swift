import Foundation

/// The built `depot` executable, run as a user would run it.
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
    /// `DEPOT_` variables of the test run itself).
    /// With a `wrapper` (e.g. `["/usr/bin/strace", "-o", "trace"]`), that program is started
    /// with `depot` and its arguments after its own.
    public static func start(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL,
        wrapper: [String] = []
    ) throws
        -> DepotProcess
    {
        // The publish index goes below the test's folder (a hidden one), not the user's cache.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DEPOT_") }
            .merging(["XDG_CACHE_HOME": directory.appendingPathComponent(".cache").path]) { $1 }
            .merging(environment) { $1 }
        guard let program = wrapper.first else { return try launch(executable.path, arguments, environment: environment, in: directory) }
        return try launch(program, wrapper.dropFirst() + [executable.path] + arguments, environment: environment, in: directory)
    }

    /// Starts a program with its output going to a log file in `directory`.
    static func launch(_ executable: String, _ arguments: [String], environment: [String: String]?, in directory: URL) throws -> DepotProcess {
        let logFile = directory.appendingPathComponent("run-\(UUID().uuidString).log")
        let log = open(logFile.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path]) }
        defer { close(log) }
        let process = try ChildProcess(executable, arguments, environment: environment, in: directory, output: log, error: log)
        return DepotProcess(process: process, logFile: logFile)
    }

    public var isRunning: Bool { process.isRunning }

    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits for the "listening on" log line and returns the port. A process that has not
    /// listened within `timeout` is killed.
    public func waitForPort(timeout: Duration = .seconds(30)) async throws -> Int {
        let port = try await poll(for: timeout) { () throws -> Int? in
            let log = log
            if let range = log.range(of: #"listening on [0-9.]+:([0-9]+)"#, options: .regularExpression) {
                return Int(log[range].split(separator: ":").last!)!
            }
            if let status = process.terminationStatus { throw DepotProcessError.exited(status: status, log: log) }
            return nil
        }
        guard let port else {
            // Killed here, not left to the caller: a helper that starts a server and waits for
            // its port registers the server's cleanup only once the wait has returned.
            kill()
            throw DepotProcessError.timedOut(log: log)
        }
        return port
    }

    /// Waits for the process to end and returns its exit status.
    public func waitForExit(timeout: Duration = .seconds(120)) async throws -> Int32 {
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
        let program = try launch(executable, arguments, environment: environment, in: directory)
        _ = try await program.waitForExit(timeout: .seconds(120))
        return program.log
    }
}
