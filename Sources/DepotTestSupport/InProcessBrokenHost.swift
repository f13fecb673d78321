import HTTPTypes
import Synchronization

/// ``BrokenServer`` in process: a host broken in one way for the length of a test. It answers
/// every request with one status, or with a redirect, or reads requests and never answers. For
/// clients' failover and reports; no socket.
package final class InProcessBrokenHost: InProcessHost {
    /// `http://host` (no trailing slash), the host a `DepotClient` reaches it at.
    package let base: String
    private let failure: BrokenServer.Failure
    private let requests = Mutex(0)

    private init(base: String, failure: BrokenServer.Failure) {
        self.base = base
        self.failure = failure
    }

    /// Runs a host failing as `failure` says, `body`, and stops it.
    package static func with<Result>(_ failure: BrokenServer.Failure, _ body: (InProcessBrokenHost) async throws -> Result) async throws -> Result {
        try await InProcessURLProtocol.serving(making: { InProcessBrokenHost(base: $0, failure: failure) }, body)
    }

    /// `path` on this host, as a `DepotClient` reaches it.
    package func url(_ path: String) -> String { base + path }

    /// The requests it has read.
    package var requestsRead: Int { requests.withLock { $0 } }

    package func answer(_ request: InProcessRequest) async throws -> InProcessAnswer {
        requests.withLock { $0 += 1 }
        switch failure {
        case .status(let status):
            return InProcessAnswer(status: status, headers: [.contentLength: "0"])
        case .redirect(let location):
            return InProcessAnswer(status: 307, headers: [.location: location, .contentLength: "0"])
        case .silence:
            return InProcessAnswer(status: 200, delivery: .unanswered)
        }
    }
}
