import ArgumentParser
import Foundation

/// A failure reported as one line on standard error, ending the command with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }
}

extension AsyncParsableCommand {
    /// Runs `body`, turning a ``CommandFailure`` into one `Error:` line and exit status 1.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("Error: \(failure.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// A sentence for an error that happened before any response arrived.
func describeConnectionError(_ error: any Error, server: String) -> String {
    let text = String(describing: error)
    if text.localizedCaseInsensitiveContains("refused") {
        return "cannot connect to \(server): connection refused"
    }
    if text.localizedCaseInsensitiveContains("timeout") || text.localizedCaseInsensitiveContains("timed out") {
        return "cannot connect to \(server): timed out"
    }
    return "cannot reach \(server): \(text)"
}
