import Foundation
import Synchronization

extension InProcessCLI {
    /// Runs `depot` with `arguments` in process, in `directory`, as ``run(_:token:environment:isTerminal:in:)``
    /// does, while `body` runs with what it has written so far (standard output and error as one
    /// log); then stops it (``CommandEnvironment/stop``, as SIGINT stops the binary) and
    /// returns its exit status and whole log. For a command that runs until stopped
    /// (`depot sync --watch`).
    public static func running(
        _ arguments: [String],
        token: String? = token,
        environment: [String: String] = [:],
        in directory: URL,
        _ body: (_ log: @Sendable () -> String) async throws -> Void
    ) async throws -> (status: Int32, log: String) {
        let log = CommandLog()
        let (stopped, stopping) = AsyncStream<Void>.makeStream()
        let stop: @Sendable () async -> String = {
            for await _ in stopped { break }
            return "the test"
        }
        return try await withThrowingTaskGroup(of: (status: Int32, log: String).self) { group in
            group.addTask {
                try await logged(arguments, token: token, environment: environment, log: log, stop: stop, in: directory)
            }
            do {
                try await body { log.text.withLock { $0 } }
            } catch {
                stopping.finish()
                group.cancelAll()
                throw error
            }
            stopping.finish()
            return try await group.next()!
        }
    }
}
