import DepotTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import DepotConnection
@testable import DepotServer

/// A connection's limits over real sockets: its deadlines (the rules are ConnectionDeadlinesTests'
/// table), the connection cap, and bodies over the upload limit. KeepAliveTests, below, share the
/// subject (a connection's life): what keeps a connection open, and what closes it.
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

    // Bodies over publish.maxUploadBytes: answered at once, and the connection closed.

    @Test("a declared length over the limit is 413 at once, and the connection is closed")
    func declaredTooLarge() async throws {
        try await LiveServer.withPublishing(configuration: .init(publish: .init(maxUploadBytes: 1000))) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                // Ten gigabytes announced, none sent: the answer cannot wait for the body.
                try await connection.send("PUT", "/v1/files/big.bin", headers: [PublishToken.authorization, ("Content-Length", "10000000000")])
                let response = try await connection.readResponse()
                #expect(response.status == 413)
                #expect(response.bodyText.contains("limit of 1000 bytes"))
                #expect(try await connection.isClosedByServer())
            }
            #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
        }
    }

    @Test("a chunked body that crosses the limit is 413, stored nowhere, and the connection is closed")
    func streamedTooLarge() async throws {
        try await LiveServer.withPublishing(configuration: .init(publish: .init(maxUploadBytes: 1000))) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/big.bin", headers: [PublishToken.authorization, ("Transfer-Encoding", "chunked")])
                try await connection.sendRaw(Array("800\r\n".utf8) + [UInt8](repeating: 65, count: 0x800) + Array("\r\n".utf8))
                let response = try await connection.readResponse()
                #expect(response.status == 413)
                #expect(try await connection.isClosedByServer())
            }
            let published = try await RawHTTPConnection.with(port: server.port) {
                ClientManifest.entries(try await ClientManifest.read(&$0)).count
            }
            #expect(published == 0)
            #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
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

/// One connection carries every kind of answer (RFC 9112 §9.3): after bodiless and partial
/// responses the framing stays in step and the server keeps the connection open.
@Suite("Keep-alive")
struct KeepAliveTests {
    @Test("304, 206, 416, HEAD, 412, 405 and 404 all keep the connection")
    func everyAnswerKeepsTheConnection() async throws {
        let etag = "\"\(Fixture.sha256(Fixture.text))\""
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let sequence: [(String, String, [(String, String)], Int)] = [
                    ("GET", "/text.txt", [("If-None-Match", etag)], 304),
                    ("GET", "/text.txt", [("Range", "bytes=0-9")], 206),
                    ("GET", "/text.txt", [("Range", "bytes=0-9,20-29")], 206),
                    ("GET", "/text.txt", [("Range", "bytes=999999-")], 416),
                    ("HEAD", "/text.txt", [], 200),
                    ("HEAD", "/text.txt", [("If-None-Match", etag)], 304),
                    ("GET", "/text.txt", [("If-Match", "\"x\"")], 412),
                    ("DELETE", "/text.txt", [], 405),
                    ("GET", "/missing", [], 404),
                ]
                for (method, target, headers, status) in sequence {
                    let response = try await connection.request(method, target, headers: headers)
                    #expect(response.status == status, "\(method) \(target) \(headers)")
                    #expect(response.header("Connection") != "close")
                }
                let last = try await connection.request("GET", "/text.txt")
                #expect(Data(last.body) == Fixture.text)
            }
        }
    }

    @Test("pipelined requests are answered in order")
    func pipelined() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("HEAD", "/text.txt")
                try await connection.send("GET", "/text.txt", headers: [("Range", "bytes=0-3")])
                try await connection.send("GET", "/index.html")
                #expect(try await connection.readResponse(bodyless: true).status == 200)
                #expect(try await connection.readResponse().bodyText == "line")
                #expect(try await connection.readResponse().bodyText == "<h1>home</h1>\n")
            }
        }
    }
}

extension KeepAliveTests {
    static let large = Fixture.pseudoRandom(count: 32 << 20, seed: 61)

    static func folderWithLargeFile(_ folder: URL) throws {
        try folder.write(large, to: "large.bin")
    }

    /// `Connection: close` makes the server close after the response; a slow reader still gets
    /// every byte before the close.
    @Test("Connection: close with a slow reader still delivers the whole body")
    func closeAfterSlowRead() async throws {
        try await LiveServer.with(prepare: Self.folderWithLargeFile) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("GET", "/large.bin", headers: [("Connection", "close")])
                try await Task.sleep(for: .milliseconds(500))
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == Self.large.count)
                #expect(Fixture.sha256(response.body) == Fixture.sha256(Self.large))
                #expect(try await connection.isClosedByServer())
            }
        }
    }
}

extension KeepAliveTests {
    @Test("request headers over the configured limits get 400")
    func headerLimits() async throws {
        let configuration = ServerConfiguration(headerLimits: .init(maxFieldBytes: 1024, maxListBytes: 2048, maxFieldCount: 20))
        try await LiveServer.with(configuration: configuration, prepare: Fixture.standardFolder) { server in
            let small = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: [("X-Note", String(repeating: "a", count: 500))]).status
            }
            #expect(small == 200)
            let longField = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: [("X-Note", String(repeating: "a", count: 1500))]).status
            }
            #expect(longField == 400)
            let manyFields = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: (0..<30).map { ("X-Field-\($0)", "1") }).status
            }
            #expect(manyFields == 400)
        }
    }
}
