import ArgumentParser
import Foundation

/// A failure reported as one `Error:` line on standard error (or, under `--json`, one
/// ``FailureDocument`` on standard output), ending the command with its kind's exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let kind: FailureKind
    /// Whether what was printed already tells it (`--json`: the report, which names each failed
    /// file): then only the exit status is added, so that standard output holds one object.
    var isReported = false

    init(_ message: String, kind: FailureKind = .failed) {
        self.message = message
        self.kind = kind
    }

    var description: String { message }
}

extension AsyncParsableCommand {
    /// Runs `body`, turning a ``CommandFailure`` into one `Error:` line and its kind's exit
    /// status (``FailureKind``). With `json`, every failure, a usage error included, is instead
    /// one ``FailureDocument`` on standard output (nothing on standard error), with its kind's
    /// status, in `environment`. What is printed names URLs without their credentials (``redactingCredentials(in:)``).
    func reportingFailures(json: Bool = false, in environment: CommandEnvironment, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch let failure as CommandFailure where json && failure.isReported {
            throw ExitCode(failure.kind.status)
        } catch  where json {
            let failure = FailureDocument(error)
            environment.print(try jsonLine(failure))
            throw ExitCode(failure.error.status)
        } catch let usage as ValidationError {
            throw ValidationError(redactingCredentials(in: usage.message))
        } catch let failure as CommandFailure {
            environment.printError("Error: \(printable(FailureDocument(failure).error.message))")
            throw ExitCode(failure.kind.status)
        }
    }
}

/// A sentence for an error that happened before any response arrived; the server's URL is
/// named without its credentials.
func describeConnectionError(_ error: any Error, server: String) -> String {
    let text = redactingCredentials(in: String(describing: error))
    let server = redactingCredentials(in: server)
    if text.localizedCaseInsensitiveContains("refused") {
        return "cannot connect to \(server): connection refused"
    }
    if text.localizedCaseInsensitiveContains("timeout") || text.localizedCaseInsensitiveContains("timed out") {
        return "cannot connect to \(server): timed out"
    }
    return "cannot reach \(server): \(text)"
}
