import Testing

@testable import DepotConnection

/// Deadlines as a table: what each phase of a connection allows, with made-up times.
@Suite("Connection deadlines")
struct ConnectionDeadlinesTests {
    static let limits = ConnectionLimits(
        idleTimeout: .seconds(60),
        requestHeadTimeout: .seconds(10),
        minimumBodyBytesPerSecond: 100,
        bodyRateWindow: .seconds(20)
    )

    /// A step of a connection's life at a second: what happened, then what a check says.
    enum Event {
        case bytes, head
        case body(Int)
        case readRequested, end, responseEnd
        /// A check that finds response bytes still in the socket's buffer.
        case sending
    }

    /// Events, the second of the check, and what it says.
    static let rows: [([(Int, Event)], Int, ConnectionDeadlines.Expiry?)] = [
        // An idle connection: closed at 60 s, not before.
        ([], 59, nil),
        ([], 60, ConnectionDeadlines.Expiry.idle),
        // Half a head: closed at 10 s after its first byte (slowloris).
        ([(5, Event.bytes)], 14, nil),
        ([(5, .bytes)], 15, .requestHead),
        // A head, then a body at 100 B/s or more: kept; less, while the server reads: closed.
        ([(0, .bytes), (1, .head), (2, .readRequested), (3, .body(2_000))], 21, nil),
        ([(0, .bytes), (1, .head), (2, .readRequested), (3, .body(1_999))], 21, .slowBody),
        // A slow window in which the server asked for nothing does not count.
        ([(0, .bytes), (1, .head), (3, .body(10))], 21, nil),
        // A response being written is never cut, however long it takes.
        ([(0, .bytes), (1, .head), (1, .end)], 10_000, nil),
        // After the response, the idle clock starts again.
        ([(0, .bytes), (1, .head), (1, .end), (100, .responseEnd)], 159, nil),
        ([(0, .bytes), (1, .head), (1, .end), (100, .responseEnd)], 160, .idle),
        // A response whose bytes still wait in the socket's buffer keeps the connection.
        ([(0, .bytes), (1, .head), (1, .end), (1, .responseEnd), (100, .sending)], 159, nil),
        ([(0, .bytes), (1, .head), (1, .end), (1, .responseEnd), (100, .sending)], 160, .idle),
        // A response whose end was written before the request's end arrived: idle from then.
        ([(0, .bytes), (1, .head), (1, .responseEnd), (2, .end)], 61, nil),
        ([(0, .bytes), (1, .head), (1, .responseEnd), (2, .end)], 62, .idle),
        // A pipelined request's bytes during a response start its head deadline.
        ([(0, .bytes), (1, .head), (1, .end), (2, .bytes)], 12, .requestHead),
    ]

    @Test("each phase expires after its own limit, and only then", arguments: rows)
    func table(events: [(Int, Event)], checkAt: Int, expected: ConnectionDeadlines.Expiry?) {
        var deadlines = ConnectionDeadlines(limits: Self.limits, now: .zero)
        for (second, event) in events {
            let now = Duration.seconds(second)
            switch event {
            case .bytes: deadlines.bytesArrived(now: now)
            case .head: deadlines.headReceived(now: now)
            case .body(let count): deadlines.bodyReceived(count)
            case .readRequested: deadlines.readRequested()
            case .end: deadlines.requestEnded(now: now)
            case .responseEnd: deadlines.responseEnded(now: now)
            case .sending: #expect(deadlines.check(now: now, sending: true) == nil)
            }
        }
        #expect(deadlines.check(now: .seconds(checkAt)) == expected)
    }
}
