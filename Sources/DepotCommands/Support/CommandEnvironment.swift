import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `depot` command reads and writes outside its arguments: where its output and errors
/// go, the environment variables it reads (`DEPOT_TOKEN`, `DEPOT_SERVER`, the server's settings
/// …), the folder its relative paths are resolved against, and how it sends HTTP requests.
/// Passed to every command (``DepotCommandLine/run(_:in:)``), never global: ``process`` is the
/// binary's, and a test runs a command in process with one of its own.
public struct CommandEnvironment: Sendable {
    /// Where the command's output goes (standard output).
    public var output: TextWriter
    /// Where its errors, warnings and progress go (standard error).
    public var errors: TextWriter
    /// The environment variables it reads.
    public var variables: [String: String]
    /// The folder relative paths name files in; `nil`: the process's working directory (a
    /// relative path is left for the system to resolve).
    public var directory: URL?
    /// Whether ``errors`` is a terminal: progress bars and phase lines are drawn only then.
    public var isTerminal: Bool
    /// How requests to a server are sent; `nil`: an AsyncHTTPClient made for the command
    /// (``HTTPTransports/withClient(_:)``).
    public var transport: (any HTTPTransport)?
    /// What ends a command that runs until stopped (`depot sync --watch`): returns when it
    /// should stop, with the reason it says; `nil`: SIGINT or SIGTERM.
    public var stop: (@Sendable () async -> String)?

    public init(
        output: TextWriter,
        errors: TextWriter,
        variables: [String: String],
        directory: URL?,
        isTerminal: Bool = false,
        transport: (any HTTPTransport)? = nil,
        stop: (@Sendable () async -> String)? = nil
    ) {
        self.output = output
        self.errors = errors
        self.variables = variables
        self.directory = directory
        self.isTerminal = isTerminal
        self.transport = transport
        self.stop = stop
    }

    /// The running process's: standard output and error, its environment variables and working
    /// directory, and an AsyncHTTPClient.
    public static var process: CommandEnvironment {
        CommandEnvironment(
            output: .standardOutput,
            errors: .standardError,
            variables: ProcessInfo.processInfo.environment,
            directory: nil,
            isTerminal: isatty(STDERR_FILENO) == 1
        )
    }

    /// Writes `line` and a line break to the output.
    func print(_ line: String) {
        output.write(line + "\n")
    }

    /// Writes `line` and a line break to the errors.
    func printError(_ line: String) {
        errors.write(line + "\n")
    }

    /// `path` (a command-line argument or setting) as a path the system can open: relative ones
    /// resolved against ``directory``.
    func resolve(_ path: String) -> String {
        guard let directory, !path.hasPrefix("/") else { return path }
        return directory.appendingPathComponent(path).path
    }

    /// `path` as a command line would have named it: a path in ``directory`` relative to it
    /// (what ``resolve(_:)`` made of a relative one, told back as it was given).
    func asGiven(_ path: String) -> String {
        guard let directory, path.hasPrefix(directory.path + "/") else { return path }
        return String(path.dropFirst(directory.path.count + 1))
    }

    /// Runs `body` with this environment's transport, or with an HTTP client made for it and
    /// shut down after.
    func withTransport<Result>(_ body: (any HTTPTransport) async throws -> Result) async throws -> Result {
        if let transport { return try await body(transport) }
        return try await HTTPTransports.withClient(body)
    }
}

/// Where a command writes text: a standard stream, or a test's buffer.
public struct TextWriter: Sendable {
    /// Writes `text` as it is, at once (no buffer: with `--watch` each line must reach a log now).
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    // A stream that cannot be written (a full disk, a closed pipe) loses the text, as `print`
    // does: the legacy `write(_:)` would stop the process.
    public static let standardOutput = TextWriter { try? FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) }
    public static let standardError = TextWriter { try? FileHandle.standardError.write(contentsOf: Data($0.utf8)) }
}
