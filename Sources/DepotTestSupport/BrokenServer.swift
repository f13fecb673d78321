import NIOCore
import NIOPosix
import Synchronization

/// A server on 127.0.0.1 that is broken in one way for the length of a test: it answers every
/// request with one status (an origin or mirror in trouble: 503, 502…), or it accepts
/// connections and never answers (one that hangs). For clients' failover.
public struct BrokenServer: Sendable {
    /// How the server fails.
    public enum Failure: Sendable {
        /// Every request gets this status, with an empty body.
        case status(Int)
        /// Requests are read and never answered.
        case silence
        /// Every request gets `307 Temporary Redirect` to this URL: a server sending its client
        /// elsewhere.
        case redirect(String)
    }

    /// The port it listens on.
    public let port: Int
    private let tally = Tally()

    /// What the server has seen of its clients.
    private final class Tally: Sendable {
        let requests = Mutex(0)
    }

    /// The requests it has read (their headers' ends).
    public var requestsRead: Int { tally.requests.withLock { $0 } }

    init(port: Int) {
        self.port = port
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts a server failing as `failure` says, runs `body`, and stops it.
    public static func with<Result: Sendable>(_ failure: Failure, _ body: @Sendable (BrokenServer) async throws -> Result) async throws -> Result {
        try await LocalListener.serve(
            making: BrokenServer.init(port:),
            handle: { server, connection in try await answer(connection, failure, tally: server.tally) },
            body
        )
    }

    /// Answers each request of `connection` (its header's end, `\r\n\r\n`) as `failure` says.
    private static func answer(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, _ failure: Failure, tally: Tally) async throws {
        try await connection.executeThenClose { inbound, outbound in
            let end: [UInt8] = Array("\r\n\r\n".utf8)
            // The last bytes read that could begin a header's end.
            var tail: [UInt8] = []
            for try await buffer in inbound {
                let bytes = tail + Array(buffer.readableBytesView)
                var index = 0
                while index + end.count <= bytes.count {
                    guard bytes[index..<index + end.count].elementsEqual(end) else {
                        index += 1
                        continue
                    }
                    index += end.count
                    tally.requests.withLock { $0 += 1 }
                    if case .status(let status) = failure {
                        try await outbound.write(ByteBuffer(string: "HTTP/1.1 \(status) Broken\r\nContent-Length: 0\r\n\r\n"))
                    }
                    if case .redirect(let location) = failure {
                        try await outbound.write(ByteBuffer(string: "HTTP/1.1 307 Elsewhere\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"))
                    }
                }
                tail = Array(bytes[max(index, bytes.count - end.count + 1)...])
            }
        }
    }
}
