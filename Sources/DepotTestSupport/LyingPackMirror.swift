import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A hostile mirror on 127.0.0.1 in front of a server: it relays every request but those for a
/// page's brotli pack (`/packs/{page}.br`), whose length it lies about. A `HEAD` says
/// `Content-Length: 1`; a `GET` gets the plain pack's bytes (`/packs/{page}`, from the server),
/// which do not decode as brotli. One request a connection (`Connection: close`). It counts the
/// body bytes it sends, by request target, so a test can hold a client's report to them.
public final class LyingPackMirror: Sendable {
    /// The port clients connect to.
    public let port: Int
    private let upstreamPort: Int
    /// Bytes added after the plain pack's in a brotli pack's answer (issue 57, cause 8: a body
    /// longer than the signed length).
    private let surplus: Int
    /// Each answer sent: its request line's method and target, and its body's bytes.
    private let sent = Mutex<[(method: String, target: String, bytes: Int)]>([])

    init(port: Int, upstreamPort: Int, surplus: Int = 0) {
        self.port = port
        self.upstreamPort = upstreamPort
        self.surplus = surplus
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The body bytes sent in answer to `method` requests whose target starts with `prefix`.
    public func bodyBytes(_ method: String = "GET", startingWith prefix: String) -> Int {
        sent.withLock { $0.filter { $0.method == method && $0.target.hasPrefix(prefix) }.reduce(0) { $0 + $1.bytes } }
    }

    /// How many `method` requests with a target starting with `prefix` were answered.
    public func requests(_ method: String, startingWith prefix: String) -> Int {
        sent.withLock { $0.filter { $0.method == method && $0.target.hasPrefix(prefix) }.count }
    }

    /// Starts a mirror in front of `127.0.0.1:upstreamPort`, runs `body`, and stops it. With a
    /// `surplus`, a brotli pack's answer is that many bytes longer than the plain pack.
    public static func with<Result: Sendable>(
        upstreamPort: Int,
        surplus: Int = 0,
        _ body: @Sendable (LyingPackMirror) async throws -> Result
    ) async throws -> Result {
        try await LocalListener.serve(
            making: { LyingPackMirror(port: $0, upstreamPort: upstreamPort, surplus: surplus) },
            handle: { mirror, connection in try await mirror.serve(connection) },
            body
        )
    }

    /// Reads one request's head from `connection`, answers it, and closes.
    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var pending = ByteBuffer()
            for try await var buffer in inbound {
                pending.writeBuffer(&buffer)
                guard let end = pending.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                let head = pending.readString(length: end.upperBound - pending.readerIndex) ?? ""
                try await outbound.write(try await answer(head))
                return
            }
        }
    }

    /// The answer to the request whose head is `head`, whole.
    private func answer(_ head: String) async throws -> ByteBuffer {
        let lines = head.split(separator: "\r\n").map(String.init)
        let parts = (lines.first ?? "").split(separator: " ").map(String.init)
        let (method, target) = (parts.first ?? "GET", parts.count > 1 ? parts[1] : "/")
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            guard !["host", "connection"].contains(name.lowercased()) else { return nil }
            return (name, String(line[line.index(after: colon)...]).trimmingCharacters(in: [" ", "\t"]))
        }
        if let plain = Self.plainPack(of: String(target.prefix { $0 != "?" })) {
            if method == "HEAD" { return record(method, target, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\n", body: []) }
            let body = try await relay("GET", plain, fields: []).body + [UInt8](repeating: 0, count: surplus)
            return record(method, target, "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n", body: body)
        }
        let response = try await relay(method, target, fields: fields)
        var text = "HTTP/1.1 \(response.status) Relayed\r\n"
        for (name, value) in response.fields where !["connection", "keep-alive", "transfer-encoding", "content-length"].contains(name.lowercased()) {
            text += "\(name): \(value)\r\n"
        }
        if method == "HEAD" {
            if let length = response.header("Content-Length") { text += "Content-Length: \(length)\r\n" }
        } else if response.status != 304, response.status != 204 {
            text += "Content-Length: \(response.body.count)\r\n"
        }
        return record(method, target, text + "Connection: close\r\n\r\n", body: response.body)
    }

    /// The plain pack whose bytes a lying mirror sends for `path` when that is a page's brotli
    /// pack (`/packs/{page}.br`), on a socket or in process (``InProcessPackMirror``); nil for
    /// any other path.
    package static func plainPack(of path: String) -> String? {
        path.hasPrefix("/packs/") && path.hasSuffix(".br") ? String(path.dropLast(3)) : nil
    }

    /// `method target` with `fields`, sent to the server.
    private func relay(_ method: String, _ target: String, fields: [(String, String)]) async throws -> RawHTTPResponse {
        try await RawHTTPConnection.with(port: upstreamPort) { try await $0.request(method, target, headers: fields) }
    }

    /// Counts an answer's body, and returns the answer's bytes.
    private func record(_ method: String, _ target: String, _ head: String, body: [UInt8]) -> ByteBuffer {
        sent.withLock { $0.append((method, target, body.count)) }
        var buffer = ByteBuffer(string: head)
        buffer.writeBytes(body)
        return buffer
    }
}
