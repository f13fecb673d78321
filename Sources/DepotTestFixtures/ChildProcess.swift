import Foundation
import Subprocess

#if canImport(Glibc)
import CLinuxCalls
import Glibc
import SystemPackage
#elseif canImport(Darwin)
import Darwin
import System
#endif

/// A program a test starts (curl, nginx, the built `depot`, a system tool), for the length of a
/// closure: ``with(_:_:environment:in:input:output:error:_:)`` starts it, and once the closure
/// returns or throws, kills what is left of it and reaps it. No child outlives its test.
///
/// Started with swift-subprocess: default signal handling and an empty signal mask (a test
/// process that runs a server ignores SIGTERM, and an ignored signal stays ignored across
/// `exec`), none of the test process's descriptors beyond the three it is given, and a process
/// group of its own. Signals go to the whole group: a program a wrapper started (strace's
/// `depot serve`, nginx's workers) ends with it.
public struct ChildProcess: Sendable {
    /// The child's process ID.
    public let processIdentifier: pid_t

    /// The variable `scripts/test` marks every process of its run with, so that its check for
    /// leftovers stops those and nothing else on the machine (`scripts/lib/leftovers`).
    public static let runMarker = "DEPOT_TEST_RUN"

    /// `environment` with the test run's marker (``runMarker``) when it names none: a child
    /// given an environment of its own still belongs to the run that started it.
    static func markingRun(_ environment: [String: String]) -> [String: String] {
        guard environment[runMarker] == nil, let run = ProcessInfo.processInfo.environment[runMarker] else { return environment }
        return environment.merging([runMarker: run]) { given, _ in given }
    }

    /// The exit code, or the number of the signal that ended the child (as Foundation's
    /// `Process.terminationStatus`); `nil` while it runs. Never blocks, and leaves the child to
    /// be reaped by swift-subprocess when the closure ends.
    public var terminationStatus: Int32? {
        var status: Int32 = 0
        #if canImport(Glibc)
        return depot_child_ended(processIdentifier, &status) == 1 ? status : nil
        #else
        var info = siginfo_t()
        guard waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_pid != 0 else { return nil }
        status = info.si_status
        return status
        #endif
    }

    /// Whether the child still runs.
    public var isRunning: Bool { terminationStatus == nil }

    /// Sends `signal` to the child and the processes of its group, unless it has ended.
    public func send(_ signal: Int32) {
        if isRunning { kill(-processIdentifier, signal) }
    }

    /// Waits for the child to end, without holding a thread of the cooperative pool, and
    /// returns ``terminationStatus``. `timeout` is a guard against a hung child, not a
    /// judgement of speed.
    public func waitForExit(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if let status = terminationStatus { return status }
            guard ContinuousClock.now < deadline else { throw ChildProcessError.timedOut("process \(processIdentifier)") }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Starts `executable` (searched for in `PATH` when it has no `/`) with `arguments`, runs
    /// `body` with it, then kills its process group if it still runs, and waits for it to end.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment (marked as the run's); the test
    ///     process's when `nil`.
    ///   - directory: Its working folder; the test process's when `nil`.
    ///   - input: The descriptor it reads as standard input (left open); `/dev/null` when `nil`.
    ///   - output: The descriptor it writes standard output to (left open); `/dev/null` when `nil`.
    ///   - error: The descriptor it writes standard error to (left open); `/dev/null` when `nil`.
    public static func with<Result: Sendable>(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Int32? = nil,
        output: Int32? = nil,
        error: Int32? = nil,
        _ body: (ChildProcess) async throws -> Result
    ) async throws -> Result {
        let nullDevice = try FileDescriptor.open("/dev/null", .readWrite, options: .closeOnExec)
        defer { try? nullDevice.close() }
        func given(_ descriptor: Int32?) -> FileDescriptor { descriptor.map(FileDescriptor.init(rawValue:)) ?? nullDevice }
        return try await Subprocess.run(
            Self.executable(executable),
            arguments: Arguments(arguments),
            environment: Self.environment(environment),
            workingDirectory: directory.map { FilePath($0.path) },
            platformOptions: Self.options,
            input: .fileDescriptor(given(input), closeAfterSpawningProcess: false),
            output: .fileDescriptor(given(output), closeAfterSpawningProcess: false),
            error: .fileDescriptor(given(error), closeAfterSpawningProcess: false)
        ) { execution in
            let child = ChildProcess(processIdentifier: execution.processIdentifier.value)
            let result = try await body(child)
            child.send(SIGKILL)
            return result
        }.closureResult
    }

    /// Its own process group, and SIGKILL to that group when the closure throws or its task is
    /// cancelled.
    private static var options: PlatformOptions {
        var options = PlatformOptions()
        options.processGroupID = 0
        options.teardownSequence = [.send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .seconds(5))]
        return options
    }

    private static func executable(_ name: String) -> Executable {
        name.contains("/") ? .path(FilePath(name)) : .name(name)
    }

    private static func environment(_ environment: [String: String]?) -> Subprocess.Environment {
        guard let environment else { return .inherit }
        return .custom(
            Dictionary(uniqueKeysWithValues: markingRun(environment).map { (Subprocess.Environment.Key(stringLiteral: $0.key), $0.value) })
        )
    }
}

extension ChildProcess {
    /// What a program run to its end printed, and how it ended.
    public struct Result: Sendable {
        public let status: Int32
        public let standardOutput: Data
        public let standardError: Data
    }

    /// Runs `executable` to its end and collects what it printed. A child still running after
    /// `timeout` (a guard against a hung child) is killed, and the run throws.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        // Hang guard: slowest seen 25 s under two busy loops (the cold sync behind nginx, a whole test).
        timeout: Duration = .seconds(300)
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                let run = try await Subprocess.run(
                    Self.executable(executable),
                    arguments: Arguments(arguments),
                    environment: Self.environment(environment),
                    workingDirectory: directory.map { FilePath($0.path) },
                    platformOptions: Self.options,
                    input: .none,
                    output: .data(limit: 1 << 30),
                    error: .data(limit: 1 << 30)
                )
                let status: Int32 =
                    switch run.terminationStatus {
                    case .exited(let code): code
                    case .signaled(let signal): signal
                    }
                return Result(status: status, standardOutput: run.standardOutput, standardError: run.standardError)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next() ?? nil else { throw ChildProcessError.timedOut(executable) }
            return result
        }
    }
}

/// Why a child process could not be waited for.
public enum ChildProcessError: Error, CustomStringConvertible {
    /// The child (a program's name, or a process ID) had not ended when its time was up.
    case timedOut(String)

    public var description: String {
        switch self {
        case .timedOut(let child): "\(child) did not end in time"
        }
    }
}
