import DepotTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import DepotConnection
@testable import DepotServer

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

/// The limits over real sockets.
@Suite("Connection limits")
struct ConnectionLimitsTests {
    /// Opens `count` connections to `port` and sends `bytes` on each; returns their channels.
    static func connect(_ count: Int, port: Int, sending bytes: String) async throws -> [any Channel] {
        var channels: [any Channel] = []
        for _ in 0..<count {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(ByteBuffer(string: bytes))
            channels.append(channel)
        }
        return channels
    }

    /// A configuration whose deadlines are judged by `uptime`, which only the test moves: each
    /// test below checks that a close happens when that clock says so, and not before, however
    /// slowly a loaded machine runs it. The rules themselves are the table above.
    static func configuration(_ limits: ConnectionLimits, uptime: ManualClock) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.connectionLimits = limits
        configuration.connectionClock = uptime.connectionClock
        return configuration
    }

    @Test(
        "500 connections that send half a request head are closed at the deadline, while a normal client is served"
    )
    func slowloris() async throws {
        let uptime = ManualClock()
        let limits = ConnectionLimits(idleTimeout: .seconds(30), requestHeadTimeout: .seconds(2))
        try await LiveServer.with(configuration: Self.configuration(limits, uptime: uptime)) { server in
            let slow = try await Self.connect(500, port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wait: ")
            // Meanwhile an ordinary client gets its answers.
            try await RawHTTPConnection.with(port: server.port) { connection in
                for _ in 0..<5 {
                    #expect(try await connection.request("GET", "/healthz").status == 200)
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            // None is closed while the server's clock stands still, however long that took.
            #expect(slow.allSatisfy { $0.isActive }, "closed before the deadline")
            // Each goes at the first check after its deadline: the clock moves on by the
            // deadline each time (a loaded server may read a head's first bytes late, and
            // start its deadline then).
            // Hang guard: slowest seen 10.7 s under two busy loops (the whole test).
            let closed = try await poll(every: .milliseconds(600), for: .seconds(120)) { () -> Bool? in
                if slow.allSatisfy({ !$0.isActive }) { return true }
                uptime.advance(by: .seconds(2))
                return nil
            }
            #expect(closed == true)
            for channel in slow { try? await channel.close() }
        }
    }

    @Test(
        "an idle keep-alive connection is closed after the idle timeout; one in use is not",
        arguments: ["/healthz", "/a.txt"]  // answered by Hummingbird, and by the direct path
    )
    func idleKeepAlive(target: String) async throws {
        let uptime = ManualClock()
        let limits = ConnectionLimits(idleTimeout: .seconds(2), requestHeadTimeout: .seconds(2))
        let prepare: (URL) throws -> Void = { try $0.write(Data("a\n".utf8), to: "a.txt") }
        try await LiveServer.with(configuration: Self.configuration(limits, uptime: uptime), prepare: prepare) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                // In use for six idle timeouts: a request every 1.5 s of the server's clock, each
                // gap long enough in real time for a check (every 0.5 s) to judge it.
                for _ in 0..<8 {
                    #expect(try await connection.request("GET", target).status == 200)
                    uptime.advance(by: .milliseconds(1500))
                    try await Task.sleep(for: .milliseconds(600))
                }
                #expect(try await connection.request("GET", target).status == 200, "closed while in use")
                // Idle for the timeout: closed at the next check.
                uptime.advance(by: .seconds(2))
                #expect(try await connection.isClosedByServer())
            }
        }
    }

    @Test("a client that reads a download slowly is not cut by the idle timeout", arguments: [true, false])
    func slowReader(direct: Bool) async throws {
        let uptime = ManualClock()
        var configuration = Self.configuration(ConnectionLimits(idleTimeout: .seconds(1), requestHeadTimeout: .seconds(1)), uptime: uptime)
        configuration.directResponses = direct
        let big = Fixture.pseudoRandom(count: 32 << 20, seed: 5)
        let prepare: (URL) throws -> Void = { try $0.write(big, to: "big.bin") }
        try await LiveServer.with(configuration: configuration, prepare: prepare) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("GET", "/big.bin")
                // Nothing read for three idle timeouts of the server's clock, each seen by
                // checks (every 0.25 s): the rest waits in the server's buffers.
                for _ in 0..<3 {
                    try await Task.sleep(for: .milliseconds(400))
                    uptime.advance(by: .seconds(1))
                }
                try await Task.sleep(for: .milliseconds(400))
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == big.count)
            }
        }
    }

    @Test("an upload slower than the minimum body rate is cut; a steady one is not")
    func slowUpload() async throws {
        let uptime = ManualClock()
        var configuration = Self.configuration(ConnectionLimits(minimumBodyBytesPerSecond: 2_000, bodyRateWindow: .seconds(1)), uptime: uptime)
        configuration.publish.tokens = [LiveServer.token]
        let headers = [("Authorization", "Bearer \(LiveServer.token)"), ("Content-Length", "60000")]
        try await LiveServer.with(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/slow.bin", headers: headers)
                // 10 bytes a window of one second: far under 2,000. Cut at the first check of a
                // window in which the server asked for more (a busy server's does not count).
                var closed = false
                for _ in 0..<200 where !closed {
                    do {
                        try await connection.sendRaw([UInt8](repeating: 0x61, count: 10))
                    } catch {
                        closed = true
                    }
                    uptime.advance(by: .seconds(1))
                    try await Task.sleep(for: .milliseconds(300))
                }
                #expect(closed)
            }
            let steady = try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/steady.bin", headers: headers)
                // 30,000 bytes in each of two windows, each window judged by a check: sent
                // bytes are in the server's socket buffer, and a loop reads before its timers.
                for _ in 0..<2 {
                    try await connection.sendRaw([UInt8](repeating: 0x62, count: 30_000))
                    uptime.advance(by: .seconds(1))
                    try await Task.sleep(for: .milliseconds(300))
                }
                return try await connection.readResponse().status
            }
            #expect(steady == 201)
        }
    }

    @Test("connections over http.maxConnections get 503 and are closed; once one closes, the next is served")
    func maxConnections() async throws {
        var configuration = ServerConfiguration()
        configuration.connectionLimits = ConnectionLimits(maxConnections: 3)
        try await LiveServer.with(configuration: configuration) { server in
            var clients: [(channel: any Channel, received: Received)] = []
            for _ in 0..<5 {
                let received = Received()
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelInitializer { $0.pipeline.addHandler(ReceivedRecorder(received: received)) }
                    .connect(host: "127.0.0.1", port: server.port).get()
                // A refused connection may be answered before the request is written.
                try? await channel.writeAndFlush(ByteBuffer(string: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
                clients.append((channel, received))
            }
            // Until every connection has its answer, at most 10 s on a loaded machine.
            // Hang guard: slowest seen 0.53 s under two busy loops (the whole test).
            for _ in 0..<200 where clients.contains(where: { !$0.received.text.withLock { $0.contains("\r\n\r\n") } }) {
                try await Task.sleep(for: .milliseconds(50))
            }
            let texts = clients.map { $0.received.text.withLock { $0 } }
            let served = texts.filter { $0.hasPrefix("HTTP/1.1 200") }.count
            let refused = texts.filter { $0.hasPrefix("HTTP/1.1 503") && $0.contains("too many connections") }.count
            // Three at most (Hummingbird's test client may hold one of them), every other refused.
            #expect(served <= 3 && refused >= 2 && served + refused == 5, "\(texts)")
            for client in clients where client.received.text.withLock({ $0.hasPrefix("HTTP/1.1 503") }) {
                try? await client.channel.closeFuture.get()
            }
            for client in clients { try? await client.channel.close() }
            try await Task.sleep(for: .milliseconds(200))
            let next = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/healthz").status }
            #expect(next == 200)
        }
    }
}

/// What a connection received, shared with the test.
final class Received: Sendable {
    let text = Mutex("")
}

/// Collects what a connection receives.
final class ReceivedRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received: Received

    init(received: Received) {
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        received.text.withLock { $0 += String(buffer: buffer) }
    }
}
