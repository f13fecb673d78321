import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization

@testable import DepotClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers a `DepotClient`'s requests to an ``InProcessServer``'s host from that server's
/// router, in process: the client's URLSession, delegate and every check of its transport run as
/// in use, and the server's routes and responders are the real ones, but no socket carries the
/// bytes. Requests to any other host go to the network as usual.
///
/// What it does not carry, and the suites whose subject it is keep a live server for: the
/// connection layer (direct answers, deadlines, keep-alive), transfer timing (a body arrives at
/// once, in pieces of ``pieceBytes``), redirects, and libcurl's own `Accept-Encoding` (a request
/// goes to the router with the headers the client set, so documents come as identity).
final class InProcessURLProtocol: URLProtocol {
    /// The router clients of the servers running now, by host.
    private static let servers = Mutex<[String: any TestClientProtocol]>([:])
    /// Servers started so far: each has a host of its own.
    private static let hosts = Atomic<Int>(0)

    /// The most body bytes handed to the client at once, as a socket would in pieces.
    static let pieceBytes = 64 << 10

    /// Runs `body` with `client` answering the requests to a host of its own, whose base URL
    /// (`http://host`, no trailing slash) `body` is given.
    static func serving<Result>(_ client: any TestClientProtocol, _ body: (String) async throws -> Result) async throws -> Result {
        DepotClient.interceptRequests(with: InProcessURLProtocol.self)
        let host = "server-\(hosts.add(1, ordering: .relaxed).newValue).in-process.invalid"
        servers.withLock { $0[host] = client }
        defer { _ = servers.withLock { $0.removeValue(forKey: host) } }
        return try await body("http://\(host)")
    }

    override class func canInit(with request: URLRequest) -> Bool {
        guard let host = request.url?.host else { return false }
        return servers.withLock { $0[host] != nil }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// The router's answer, once it came: then told to the client on the queue URLSession
    /// calls this protocol on (``startLoading()``).
    private let answer = Mutex<Result<(HTTPURLResponse, ByteBuffer), any Error>?>(nil)

    /// Asks the router, in a task, and tells the client its answer whole, on the queue this is
    /// called on.
    ///
    /// swift-corelibs-foundation calls a protocol on its task's work queue, and the client reads
    /// the session's task registry, which only that queue may touch: told from another thread,
    /// the client raced the task's end (a task cancelled while its body was being handed over)
    /// and trapped. Nor may that queue wait for the answer: the router answers on threads it
    /// shares with it, and a run whose protocols waited there stopped every sync. So the task
    /// asks, keeps the answer, then suspends and resumes the URLSession task, whose resume calls
    /// this again on its queue, which tells the client. A task cancelled meanwhile is not
    /// resumed: URLSession tells its delegate itself.
    override func startLoading() {
        if let answer = answer.withLock({ $0 }) { return tell(answer) }
        let asking = Asking(urlProtocol: self, request: request)
        Task { await asking.ask() }
    }

    /// Called when the task is suspended (on the way back to ``startLoading()``) or cancelled:
    /// nothing under way to stop.
    override func stopLoading() {}

    private func tell(_ answer: Result<(HTTPURLResponse, ByteBuffer), any Error>) {
        switch answer {
        case .success(let (response, body)):
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            var bytes = body
            while let piece = bytes.readSlice(length: min(Self.pieceBytes, bytes.readableBytes)), piece.readableBytes > 0 {
                client?.urlProtocol(self, didLoad: Data(piece.readableBytesView))
            }
            client?.urlProtocolDidFinishLoading(self)
        case .failure(let error):
            client?.urlProtocol(self, didFailWithError: error)
        }
    }

    /// This protocol and its request (neither `Sendable`), handed to the task that asks the
    /// router; the protocol is touched there only through its lock and URLSession's task.
    private struct Asking: @unchecked Sendable {
        let urlProtocol: InProcessURLProtocol
        let request: URLRequest

        func ask() async {
            let result: Result<(HTTPURLResponse, ByteBuffer), any Error>
            do {
                result = .success(try await InProcessURLProtocol.answer(request))
            } catch {
                result = .failure(error)
            }
            urlProtocol.answer.withLock { $0 = result }
            #if canImport(FoundationNetworking)
            // Back to the task's queue: its resume calls startLoading() there.
            urlProtocol.task?.suspend()
            urlProtocol.task?.resume()
            #else
            urlProtocol.tell(result)
            #endif
        }
    }

    /// The router's answer to `request`: its head as URLSession gives it, and its body.
    private static func answer(_ request: URLRequest) async throws -> (HTTPURLResponse, ByteBuffer) {
        guard let url = request.url, let host = url.host, let server = servers.withLock({ $0[host] }) else {
            throw URLError(.cannotConnectToHost)
        }
        let response = try await server.executeRequest(
            uri: target(of: url),
            method: HTTPRequest.Method(request.httpMethod ?? "GET") ?? .get,
            headers: fields(of: request),
            body: body(of: request).map { ByteBuffer(bytes: $0) }
        )
        var headers: [String: String] = [:]
        for field in response.headers {
            headers[field.name.rawName] = headers[field.name.rawName].map { "\($0), \(field.value)" } ?? field.value
        }
        guard let head = HTTPURLResponse(url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: headers) else {
            throw URLError(.badServerResponse)
        }
        return (head, response.body)
    }

    /// The request target: the URL's path and query as the client encoded them.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    private static func fields(of request: URLRequest) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return fields
    }

    /// The body the client set, whole: given as data, or as a stream (as URLSession hands a
    /// protocol a body it was given as data on some platforms).
    private static func body(of request: URLRequest) -> [UInt8]? {
        if let data = request.httpBody { return Array(data) }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}
