import DepotAPI
import Foundation
import NIOCore
import NIOPosix

/// One HTTP/1.1 response as it came off the wire.
public struct RawHTTPResponse: Sendable {
    public let status: Int
    /// Field lines in order, names as sent.
    public let fields: [(name: String, value: String)]
    public let body: [UInt8]

    /// The value of the only field line named `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The values of every field line named `name`.
    public func headers(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as `type` (a publisher API reply, `DepotAPI`), as the CLI decodes it.
    public func decoded<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try APIJSON.decode(type, from: body)
    }

    /// The body parsed as a JSON object.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
}

/// A client that writes requests byte for byte and reads responses without normalising
/// anything, so tests see exactly what the server sent, and can send several requests on one
/// connection to check keep-alive.
public struct RawHTTPConnection: ~Copyable {
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var pending = ByteBuffer()

    /// Connects to `127.0.0.1:port`, runs `body`, and closes.
    public static func with<Result: Sendable>(
        port: Int,
        _ body: (inout RawHTTPConnection) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = RawHTTPConnection(iterator: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&connection)
        }
    }

    private init(iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.iterator = iterator
        self.outbound = outbound
    }

    /// Sends a request. `target` goes on the request line as it is. With a `body`, a
    /// `Content-Length` of its size is added unless `headers` has one.
    public mutating func send(_ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body, !headers.contains(where: { $0.0.lowercased() == "content-length" }) { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        var buffer = ByteBuffer(string: text)
        if let body { buffer.writeBytes(body) }
        try await outbound.write(buffer)
    }

    /// Sends bytes as they are, e.g. part of a body.
    public mutating func sendRaw(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    /// Sends a request and reads its response.
    public mutating func request(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> RawHTTPResponse {
        try await send(method, target, headers: headers, body: body)
        return try await readResponse(bodyless: method == "HEAD")
    }

    /// Reads one response; `bodyless` for answers to HEAD.
    public mutating func readResponse(bodyless: Bool = false) async throws -> RawHTTPResponse {
        let headEnd = try await fill { buffer in
            buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)).map { $0.upperBound - buffer.readerIndex }
        }
        let head = pending.readString(length: headEnd)!
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed(head) }
        let fields = lines.map { line -> (String, String) in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t"))
        }
        var response = RawHTTPResponse(status: status, fields: fields, body: [])
        if bodyless || status == 304 || status == 204 || status < 200 { return response }
        if let coding = response.header("transfer-encoding") {
            guard coding.lowercased() == "chunked" else { throw RawHTTPError.malformed("Transfer-Encoding: \(coding)") }
            return RawHTTPResponse(status: status, fields: fields, body: try await readChunkedBody())
        }
        guard let lengthText = response.header("content-length"), let length = Int(lengthText) else {
            throw RawHTTPError.missingContentLength
        }
        _ = try await fill { $0.readableBytes >= length ? length : nil }
        response = RawHTTPResponse(status: status, fields: fields, body: pending.readBytes(length: length)!)
        return response
    }

    /// Whether the server has closed the connection (reads until end of stream or more data).
    public mutating func isClosedByServer() async throws -> Bool {
        guard pending.readableBytes == 0 else { return false }
        guard let next = try await iterator.next() else { return true }
        pending.writeImmutableBuffer(next)
        return false
    }

    /// A chunked body (RFC 9112 §7.1), without extensions or trailers, decoded.
    private mutating func readChunkedBody() async throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try await fill { buffer in
                buffer.readableBytesView.firstRange(of: Array("\r\n".utf8)).map { $0.lowerBound - buffer.readerIndex }
            }
            let sizeLine = pending.readString(length: lineEnd)!
            pending.moveReaderIndex(forwardBy: 2)
            guard let size = Int(sizeLine.prefix { $0 != ";" }, radix: 16) else { throw RawHTTPError.malformed("chunk size \(sizeLine)") }
            _ = try await fill { $0.readableBytes >= size + 2 ? size : nil }
            body += pending.readBytes(length: size)!
            pending.moveReaderIndex(forwardBy: 2)
            if size == 0 { return body }
        }
    }

    /// Reads until `done` returns a value.
    private mutating func fill(until done: (ByteBuffer) -> Int?) async throws -> Int {
        while true {
            if let value = done(pending) { return value }
            guard let next = try await iterator.next() else { throw RawHTTPError.closed(received: pending.readableBytes) }
            pending.writeImmutableBuffer(next)
        }
    }
}

public enum RawHTTPError: Error {
    case malformed(String)
    case closed(received: Int)
    case missingContentLength
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
