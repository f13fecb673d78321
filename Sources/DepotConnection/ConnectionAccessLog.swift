import DepotHTTP
import NIOCore
import NIOHTTP1

/// What the access log shares across connections.
package struct AccessLog: Sendable {
    package let writer: AccessLogWriter
    let format: AccessLogConfiguration.Format
    let trustedProxies: Set<String>

    package init(writer: AccessLogWriter, format: AccessLogConfiguration.Format, trustedProxies: Set<String>) {
        self.writer = writer
        self.format = format
        self.trustedProxies = trustedProxies
    }
}

/// One request of a connection on its way to the access log: its entry fills in as the response
/// is written, and the line is written when the response's end reaches the socket, or the
/// connection is gone. Owned by the connection's event loop.
final class LoggedRequest {
    var entry: AccessLogEntry
    let start: NIODeadline
    /// Content bytes handed to the socket for this response.
    var queued: Int64 = 0
    /// Content bytes the socket took (counted as each write completes).
    var sent: Int64 = 0
    fileprivate var logged = false

    fileprivate init(entry: AccessLogEntry, start: NIODeadline) {
        self.entry = entry
        self.start = start
    }
}

/// The access log of one connection, kept by ``DirectResponder``, which sees every request
/// part and response part of the connection, its own answers and Hummingbird's alike: the one
/// place a line is made. Requests handed to Hummingbird wait in order for their response head
/// (pipelined responses come in request order).
struct ConnectionAccessLog {
    let log: AccessLog
    /// The peer's address, formatted once.
    private let peer: String
    private var clock = AccessLogClock()
    /// Requests handed to Hummingbird whose response head has not come yet, in order.
    private var awaitingResponse = CircularBuffer<LoggedRequest>()
    /// Hummingbird's response being written.
    private(set) var current: LoggedRequest?
    private var line: [UInt8] = []

    init(log: AccessLog, peer: SocketAddress?) {
        self.log = log
        self.peer = peer?.ipAddress ?? "unknown"
    }

    /// A request head arrived.
    func begin(_ head: HTTPRequestHead) -> LoggedRequest {
        let trusted = log.trustedProxies.contains(peer)
        let entry = AccessLogEntry(
            client: trusted
                ? ForwardedClient.address(peer: peer, forwardedFor: head.headers["x-forwarded-for"], trustedProxies: log.trustedProxies) : peer,
            scheme: trusted
                ? ForwardedClient.scheme(
                    peer: peer,
                    forwardedProto: head.headers.first(name: "x-forwarded-proto"),
                    trustedProxies: log.trustedProxies
                )
                : "http",
            method: head.method.rawValue,
            target: head.uri,
            version: head.version == .http1_0 ? "HTTP/1.0" : "HTTP/1.1",
            // Only the combined format has them: no lookups for the other.
            referer: log.format == .combined ? head.headers.first(name: "referer") : nil,
            userAgent: log.format == .combined ? head.headers.first(name: "user-agent") : nil,
            requestID: nil,
            status: 499,
            bytesSent: 0,
            nanoseconds: 0,
            endedAt: 0
        )
        return LoggedRequest(entry: entry, start: .now())
    }

    /// The request went to Hummingbird; its response head comes later.
    mutating func forwarded(_ request: LoggedRequest) {
        awaitingResponse.append(request)
    }

    /// Hummingbird wrote a final response head (not a 1xx); its body parts and end follow.
    mutating func responseHead(status: Int, requestID: String?) {
        guard let request = awaitingResponse.popFirst() else { return }
        request.entry.status = status
        request.entry.requestID = requestID
        current = request
    }

    /// Hummingbird wrote the end of the current response.
    mutating func responseEnded() -> LoggedRequest? {
        defer { current = nil }
        return current
    }

    /// Writes the line of `request`, whose end was written (`completed`) or failed: every
    /// content byte went out, or those counted as written.
    mutating func finish(_ request: LoggedRequest, completed: Bool) {
        guard !request.logged else { return }
        request.logged = true
        request.entry.bytesSent = completed ? request.queued : request.sent
        request.entry.nanoseconds = (NIODeadline.now() - request.start).nanoseconds
        request.entry.endedAt = HTTPDate.now().secondsSince1970
        line.removeAll(keepingCapacity: true)
        request.entry.write(log.format, into: &line, clock: &clock)
        log.writer.append(line)
    }

    /// The connection is gone: a response under way is logged with the bytes it got out, and
    /// requests never answered with 499.
    mutating func inactive() {
        if let current { finish(current, completed: false) }
        current = nil
        while let request = awaitingResponse.popFirst() { finish(request, completed: false) }
    }
}
