import AsyncHTTPClient
import DepotCommands
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// How a `depot` command run in process (``InProcessCLI``) sends its requests: to an in-process
/// host (an ``InProcessServer``, or a test's own ``InProcessHost`` in front of one), through
/// ``InProcessURLProtocol``'s registry, the one a `DepotClient` in the same test reaches them by
/// (the request body whole; the answer whole, cut or trickled; no socket); to any other host (an nginx, a server on a socket),
/// through `network`, a real HTTP client.
struct InProcessTransport: HTTPTransport {
    /// The transport for hosts that are not in process.
    let network: any HTTPTransport

    /// A delivery this transport does not carry (a stall: a `DepotClient`'s subject).
    struct UnsupportedDelivery: Error, CustomStringConvertible {
        let delivery: InProcessAnswer.Delivery
        var description: String { "InProcessTransport carries whole and cut bodies, not \(delivery)" }
    }

    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        guard let url = URL(string: request.url), let host = url.host, InProcessURLProtocol.answers(host: host) else {
            return try await network.execute(request, timeout: timeout)
        }
        var body: [UInt8]?
        if let requestBody = request.body {
            var collected: [UInt8] = []
            for try await chunk in requestBody { collected += chunk.readableBytesView }
            body = collected
        }
        var fields = HTTPFields()
        for header in request.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        // What an HTTP client sends with a body of known length.
        if let body, fields[.contentLength] == nil { fields[.contentLength] = "\(body.count)" }
        let answer = try await InProcessURLProtocol.exchange(
            InProcessRequest(method: request.method.rawValue, target: Self.target(of: url), headers: fields, body: body),
            at: "http://\(host)"
        )
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(name: field.name.rawName, value: field.value) }
        return HTTPClientResponse(status: HTTPResponseStatus(statusCode: answer.status), headers: headers, body: try Self.body(of: answer))
    }

    /// The answer's body as the command reads it: whole, cut where the host cuts it, or a piece at a
    /// time.
    private static func body(of answer: InProcessAnswer) throws -> HTTPClientResponse.Body {
        switch answer.delivery {
        case .whole:
            return .bytes(answer.body)
        case .cut(let count):
            let told = answer.body.getSlice(at: answer.body.readerIndex, length: min(count, answer.body.readableBytes)) ?? ByteBuffer()
            return .stream(
                AsyncThrowingStream<ByteBuffer, any Error> {
                    $0.yield(told)
                    $0.finish(throwing: HTTPClientError.remoteConnectionClosed)
                }
            )
        case .trickled(let bytes, let interval):
            // A piece of `bytes` after each `interval`, as a slow source sends them.
            let body = answer.body
            return .stream(
                AsyncThrowingStream<ByteBuffer, any Error> { continuation in
                    let telling = Task {
                        var offset = body.readerIndex
                        while offset < body.writerIndex {
                            try await Task.sleep(for: interval)
                            let count = min(max(1, bytes), body.writerIndex - offset)
                            continuation.yield(body.getSlice(at: offset, length: count)!)
                            offset += count
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in telling.cancel() }
                }
            )
        case .stalled, .unanswered:
            throw UnsupportedDelivery(delivery: answer.delivery)
        }
    }

    /// The request target: the URL's path and query as the command wrote them.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }
}
