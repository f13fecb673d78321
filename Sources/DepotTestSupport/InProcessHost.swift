import HTTPTypes
import HummingbirdTesting
import NIOCore

/// A host a `DepotClient` reaches in process, through ``InProcessURLProtocol``, that is not a
/// Depot server's router: a test's fault in front of one (``InProcessRelay``, a lying mirror
/// ``InProcessPackMirror``) or a server broken in one way (``InProcessBrokenHost``). It sees
/// each request whole and says what the client gets, and how (``InProcessAnswer/Delivery``).
package protocol InProcessHost: Sendable {
    /// The answer to `request`.
    func answer(_ request: InProcessRequest) async throws -> InProcessAnswer
}

/// A request as an ``InProcessHost`` sees it.
package struct InProcessRequest: Sendable {
    /// `GET`, `HEAD`…
    package var method: String
    /// Its path and query, as the client encoded them.
    package var target: String
    package var headers: HTTPFields
    package var body: [UInt8]?

    package init(method: String, target: String, headers: HTTPFields = [:], body: [UInt8]? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The request line's start, as a relay on a socket sees it: `GET /blobs/…`.
    package var line: String { "\(method) \(target)" }

    /// Its path, without the query.
    package var path: String { String(target.prefix { $0 != "?" }) }
}

/// What an ``InProcessHost`` answers, and how the client is told it.
package struct InProcessAnswer: Sendable {
    /// How much of the body reaches the client, and what then.
    package enum Delivery: Sendable, Equatable {
        /// All of it, then its end.
        case whole
        /// This many bytes, then the connection is lost (`URLError.networkConnectionLost`).
        case cut(after: Int)
        /// This many bytes, then nothing more, ever: a peer that holds the connection open.
        case stalled(after: Int)
        /// Nothing, ever, not even the head: a peer that reads the request and never answers.
        case unanswered
        /// All of it, one piece of this many bytes each `interval`, then its end.
        case trickled(bytes: Int, every: Duration)
    }

    package var status: Int
    package var headers: HTTPFields
    package var body: ByteBuffer
    package var delivery: Delivery

    package init(status: Int, headers: HTTPFields = [:], body: ByteBuffer = ByteBuffer(), delivery: Delivery = .whole) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delivery = delivery
    }

    /// A router's response, delivered whole.
    init(_ response: TestResponse) {
        self.init(status: Int(response.status.code), headers: response.headers, body: response.body)
    }

    /// The header field `name`'s value.
    package func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
