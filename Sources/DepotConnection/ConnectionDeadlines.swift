/// The deadlines of one connection, as a state machine the handlers feed with what they see and
/// ask on each check whether to close: no I/O, no clock of its own, so it is tested with made-up
/// times (in the manner of Hummingbird's `HTTPConnectionStateHandler.StateMachine`).
///
/// - Idle: no request in progress and no byte of the next one; closed after `idleTimeout`.
/// - Head: from the first byte of a request until its head is decoded; closed after
///   `requestHeadTimeout` (slowloris).
/// - Body: from a head until the request's end; closed when fewer than
///   `minimumBodyBytesPerSecond` arrive over a `bodyRateWindow` in which the server asked for
///   more (a window in which the server read nothing, being busy, does not count against it).
/// - Responding: a request was read and its response is not yet all written, or still waits in
///   the socket's buffer; never closed here, since how fast a client reads is bounded by
///   backpressure, not by time.
struct ConnectionDeadlines {
    enum Phase: Equatable {
        case idle(since: Duration)
        case head(since: Duration)
        case body(windowStart: Duration, bytes: Int, readRequested: Bool)
        case responding
    }

    /// Why a connection is closed.
    enum Expiry: Equatable {
        case idle
        case requestHead
        case slowBody
    }

    let limits: ConnectionLimits
    private(set) var phase: Phase
    /// Responses not yet written to the end.
    private var responsesPending = 0

    init(limits: ConnectionLimits, now: Duration) {
        self.limits = limits
        self.phase = .idle(since: now)
    }

    /// Bytes arrived on the socket.
    mutating func bytesArrived(now: Duration) {
        if case .idle = phase { phase = .head(since: now) }
        if case .responding = phase { phase = .head(since: now) }
    }

    /// A request head was decoded.
    mutating func headReceived(now: Duration) {
        responsesPending += 1
        phase = .body(windowStart: now, bytes: 0, readRequested: false)
    }

    /// `count` bytes of a request body were decoded.
    mutating func bodyReceived(_ count: Int) {
        if case .body(let start, let bytes, let requested) = phase {
            phase = .body(windowStart: start, bytes: bytes + count, readRequested: requested)
        }
    }

    /// The server asked the socket for more bytes.
    mutating func readRequested() {
        if case .body(let start, let bytes, _) = phase { phase = .body(windowStart: start, bytes: bytes, readRequested: true) }
    }

    /// The request's end was decoded: its response is being made, or, when it was answered
    /// before its end arrived (a direct answer, an early refusal), the connection is idle.
    mutating func requestEnded(now: Duration) {
        guard case .body = phase else { return }
        phase = responsesPending == 0 ? .idle(since: now) : .responding
    }

    /// A response's end was handed to the socket.
    mutating func responseEnded(now: Duration) {
        responsesPending = max(0, responsesPending - 1)
        if responsesPending == 0, phase == .responding { phase = .idle(since: now) }
    }

    /// Whether the connection is to be closed at `now`, and why. `sending` says whether bytes of
    /// a response still wait in the socket's buffer: a response counts as written when its end
    /// is handed to the socket, and a slow reader is still being served until those are sent.
    mutating func check(now: Duration, sending: Bool = false) -> Expiry? {
        switch phase {
        case .idle(let since):
            if sending {
                phase = .idle(since: now)
                return nil
            }
            return now - since >= limits.idleTimeout ? .idle : nil
        case .head(let since):
            return now - since >= limits.requestHeadTimeout ? .requestHead : nil
        case .body(let start, let bytes, let requested):
            guard now - start >= limits.bodyRateWindow else { return nil }
            if requested, Double(bytes) < Double(limits.minimumBodyBytesPerSecond) * (limits.bodyRateWindow / .seconds(1)) { return .slowBody }
            phase = .body(windowStart: now, bytes: 0, readRequested: false)
            return nil
        case .responding:
            return nil
        }
    }
}
