import Foundation
import Synchronization

#if canImport(Glibc)
import CLinuxCalls
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program a test starts: curl, nginx, the built `depot`, a system tool.
///
/// Spawned with posix_spawn(3), by hand rather than with Foundation's `Process`: on Linux, the
/// `Process.run()` of Swift 6.3 copies 256 bytes of each `/proc/self/fd` entry however short it
/// is, and crashes the whole test process when one ends a page (swift-corelibs-foundation#5472,
/// fixed after 6.3).
///
/// swiftlang/swift-subprocess 1.0.2 avoids that bug (it spawns with posix_spawn and
/// `posix_spawn_file_actions_addclosefrom_np`, read in its `process_shims.c`) and has process
/// groups and teardown sequences, but it is not used: a child lives only for the length of
/// `run`'s closure, and its output goes to pipes that closure must drain, while these tests
/// start a server (`depot serve`, nginx) in one step, keep it across the next ones, kill it at
/// a chosen moment, and read its log from a file afterwards. Scoping every such test to one
/// closure would move this file's 200 lines into each test's shape.
///
/// The child gets default signal handling and an empty signal mask (a test process that runs a
/// server ignores SIGTERM, and an ignored signal stays ignored across `exec`), and none of the
/// test process's descriptors beyond the three it is given. It leads a process group of its own,
/// and signals go to the whole group: a program a wrapper started (strace's `depot serve`,
/// nginx's workers) ends with it instead of outliving the test.
public final class ChildProcess: Sendable {
    /// The child's process ID.
    public let processIdentifier: pid_t
    /// Its exit code, or the number of the signal that ended it, once it has ended and been
    /// reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (searched for in `PATH` when it has no `/`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment; the test process's when `nil`.
    ///   - directory: Its working folder; the test process's when `nil`.
    ///   - input: The descriptor it reads as standard input; the test process's when `nil`.
    ///   - output: The descriptor it writes standard output to; the test process's when `nil`.
    ///   - error: The descriptor it writes standard error to; the test process's when `nil`.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Int32? = nil,
        output: Int32? = nil,
        error: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, standard) in [(input, STDIN_FILENO), (output, STDOUT_FILENO), (error, STDERR_FILENO)] {
            if let descriptor { posix_spawn_file_actions_adddup2(&actions, descriptor, standard) }
        }
        if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory.path) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        var noSignals = sigset_t()
        sigfillset(&allSignals)
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        #if canImport(Glibc)
        posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        #else
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_CLOEXEC_DEFAULT)
        )
        #endif

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        var environment = environment.map { Self.markingRun($0).map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for string in argv + (environment ?? []) { free(string) }
        }
        var identifier = pid_t()
        let spawn = executable.contains("/") ? posix_spawn : posix_spawnp
        let result =
            environment?.withUnsafeMutableBufferPointer { spawn(&identifier, executable, &actions, &attributes, argv, $0.baseAddress) }
            ?? spawn(&identifier, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw ChildProcessError.cannotStart(executable, String(cString: strerror(result))) }
        processIdentifier = identifier
    }

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
    /// `Process.terminationStatus`); `nil` while it runs. Never blocks.
    public var terminationStatus: Int32? { reap(blocking: false) }

    /// Whether the child still runs.
    public var isRunning: Bool { terminationStatus == nil }

    /// Sends `signal` to the child and the processes of its group, unless it has ended.
    public func send(_ signal: Int32) {
        if isRunning { kill(-processIdentifier, signal) }
    }

    /// Waits for the child to end, without holding a thread of the cooperative pool, and
    /// returns ``terminationStatus``.
    public func waitForExit(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while true {
            if let status = terminationStatus { return status }
            guard ContinuousClock.now < deadline else { throw ChildProcessError.timedOut(processIdentifier) }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Blocks the calling thread until the child ends; for synchronous tests only.
    public func waitUntilExit() -> Int32 {
        reap(blocking: true)!
    }

    private func reap(blocking: Bool) -> Int32? {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var reaped: pid_t
            repeat {
                reaped = waitpid(processIdentifier, &raw, blocking ? 0 : WNOHANG)
            } while reaped < 0 && errno == EINTR
            guard reaped == processIdentifier else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            return status
        }
    }
}

extension ChildProcess {
    /// What a program run to its end printed, and how it ended.
    public struct Result: Sendable {
        public let status: Int32
        public let standardOutput: Data
        public let standardError: Data
    }

    /// Runs `executable` to its end, its output and errors kept in unlinked temporary files
    /// (so a large output never fills a pipe).
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let output = try TemporaryFile()
        let error = try TemporaryFile()
        let child = try ChildProcess(
            executable,
            arguments,
            environment: environment,
            in: directory,
            input: TemporaryFile.nullDevice,
            output: output.descriptor,
            error: error.descriptor
        )
        let status = try await child.waitForExit(timeout: timeout)
        return Result(status: status, standardOutput: try output.contents(), standardError: try error.contents())
    }
}

/// A file for a child's output: open for reading and writing, and already unlinked.
private struct TemporaryFile: ~Copyable {
    static let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)
    let descriptor: Int32

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/depot-child-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ChildProcessError.cannotStart("mkstemp", String(cString: strerror(errno))) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit { close(descriptor) }

    func contents() throws -> Data {
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        try handle.seek(toOffset: 0)
        return try handle.readToEnd() ?? Data()
    }
}

/// Why a child process could not be started or waited for.
public enum ChildProcessError: Error, CustomStringConvertible {
    case cannotStart(String, String)
    case timedOut(pid_t)

    public var description: String {
        switch self {
        case .cannotStart(let program, let reason): "Cannot start \(program): \(reason)"
        case .timedOut(let pid): "Process \(pid) did not end in time"
        }
    }
}
