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
/// A test's own hosts (``InProcessHost``: a relay that alters what passes, a lying mirror, a
/// broken server) stand in front of a server the same way (``serving(host:_:)``), and say how a
/// body reaches the client (``InProcessAnswer/Delivery``): whole, cut, stalled, trickled or
/// never. A
/// body is told a piece at a time, each piece on a turn of its own of the task's queue, so the
/// client's cancel (a body longer than signed, a rate too low) stops what follows, as on a socket;
/// a redirect goes to the session's delegate, which follows or refuses it, as URLSession's own
/// HTTP protocol does.
///
/// What it does not carry, and the suites whose subject it is keep a live server for: the
/// connection layer (direct answers, deadlines, keep-alive) and libcurl's own `Accept-Encoding`
/// (a request goes to the router with the headers the client set, so documents come as identity).
package final class InProcessURLProtocol: URLProtocol {
    /// The router clients of the servers running now, by host.
    private static let servers = Mutex<[String: any TestClientProtocol]>([:])
    /// The test's own hosts running now (``InProcessHost``), by host.
    private static let standIns = Mutex<[String: any InProcessHost]>([:])
    /// Servers started so far: each has a host of its own.
    private static let hosts = Atomic<Int>(0)

    /// The most body bytes handed to the client on one turn of its queue, as a socket's reads
    /// would.
    static let pieceBytes = 64 << 10
    /// Pieces told on one turn: a client that cancels hears no more than this after its cancel.
    static let piecesPerTurn = 4
    /// Redirects followed for one request at most, as URLSession's HTTP protocol.
    static let redirectLimit = 16

    /// Runs `body` with `client` (a router test client: ``InProcessServer``'s, or any
    /// application's `app.test(.router)`) answering the requests to a host of its own, whose base
    /// URL (`http://host`, no trailing slash) `body` is given.
    package static func serving<Result>(_ client: any TestClientProtocol, _ body: (String) async throws -> Result) async throws -> Result {
        let host = newHost()
        return try await serving(client, at: host, in: servers) { try await body("http://\(host)") }
    }

    /// Runs `body` with the host `make` makes for a base URL (`http://host`, no trailing slash)
    /// of its own answering the requests to it.
    package static func serving<Host: InProcessHost, Result>(
        making make: (String) -> Host,
        _ body: (Host) async throws -> Result
    ) async throws -> Result {
        let host = newHost()
        let made = make("http://\(host)")
        return try await serving(made as any InProcessHost, at: host, in: standIns) { try await body(made) }
    }

    /// A host name no other server had.
    private static func newHost() -> String {
        "server-\(hosts.add(1, ordering: .relaxed).newValue).in-process.invalid"
    }

    private static func serving<Stored: Sendable, Result>(
        _ stored: Stored,
        at host: String,
        in registry: borrowing Mutex<[String: Stored]>,
        _ body: () async throws -> Result
    ) async throws -> Result {
        DepotClient.interceptRequests(with: InProcessURLProtocol.self)
        registry.withLock { $0[host] = stored }
        defer { _ = registry.withLock { $0.removeValue(forKey: host) } }
        return try await body()
    }

    /// The answer of the in-process host at `base` (`http://host`) to `request`: how a test's
    /// host reaches the server it stands in front of.
    package static func exchange(_ request: InProcessRequest, at base: String) async throws -> InProcessAnswer {
        guard let host = URL(string: base)?.host else { throw URLError(.badURL) }
        return try await exchange(request, host: host)
    }

    private static func exchange(_ request: InProcessRequest, host: String) async throws -> InProcessAnswer {
        if let standIn = standIns.withLock({ $0[host] }) { return try await standIn.answer(request) }
        guard let server = servers.withLock({ $0[host] }) else { throw URLError(.cannotConnectToHost) }
        let response = try await server.executeRequest(
            uri: request.target,
            method: HTTPRequest.Method(request.method) ?? .get,
            headers: request.headers,
            body: request.body.map { ByteBuffer(bytes: $0) }
        )
        return InProcessAnswer(response)
    }

    /// Whether `host` is an in-process server's or a test's own host running now.
    package static func answers(host: String) -> Bool {
        servers.withLock { $0[host] != nil } || standIns.withLock { $0[host] != nil }
    }

    package override class func canInit(with request: URLRequest) -> Bool {
        request.url?.host.map(answers(host:)) ?? false
    }

    package override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// How far the answer has been told.
    private struct Telling {
        var asked = false
        var answer: Result<(HTTPURLResponse, InProcessAnswer), any Error>?
        var headTold = false
        var bodyTold = 0
        var ended = false
    }

    /// What one turn tells the client.
    private enum Turn {
        case ask
        case nothing
        case fail(any Error)
        case tell(head: HTTPURLResponse?, pieces: [Data], then: End)
    }

    /// What follows a turn's pieces.
    private enum End {
        case finish
        case fail(any Error)
        case silence
        case next(after: Duration?)
    }

    private let telling = Mutex(Telling())

    /// Asks the host, in a task, on the first call; on each later one (the task's queue, after
    /// ``turn(after:)``) tells the client the head and the next pieces of the body.
    ///
    /// swift-corelibs-foundation calls a protocol on its task's work queue, and the client reads
    /// the session's task registry, which only that queue may touch: told from another thread,
    /// the client raced the task's end (a task cancelled while its body was being handed over)
    /// and trapped. Nor may that queue wait for the answer: the router answers on threads it
    /// shares with it, and a run whose protocols waited there stopped every sync. So the task
    /// asks, keeps the answer, then suspends and resumes the URLSession task, whose resume calls
    /// this again on its queue, which tells the client. A task cancelled meanwhile is not
    /// resumed: URLSession tells its delegate itself.
    package override func startLoading() {
        switch next() {
        case .ask:
            let asking = Asking(urlProtocol: self, request: request)
            Task { await asking.ask() }
        case .nothing:
            break
        case .fail(let error):
            client?.urlProtocol(self, didFailWithError: error)
        case .tell(let head, let pieces, let end):
            if let head { client?.urlProtocol(self, didReceive: head, cacheStoragePolicy: .notAllowed) }
            for piece in pieces { client?.urlProtocol(self, didLoad: piece) }
            switch end {
            case .finish: client?.urlProtocolDidFinishLoading(self)
            case .fail(let error): client?.urlProtocol(self, didFailWithError: error)
            case .silence: break
            case .next(let pause): turn(after: pause)
            }
        }
    }

    /// Called when the task is suspended (on the way back to ``startLoading()``) or cancelled:
    /// nothing under way to stop.
    package override func stopLoading() {}

    /// What this turn tells, from the answer and how much of it was told: nothing more once
    /// the task was cancelled (URLSession tells its delegate itself).
    private func next() -> Turn {
        if let state = task?.state, state == .canceling || state == .completed { return .nothing }
        return telling.withLock { telling in
            guard let answer = telling.answer else {
                if telling.asked { return .nothing }
                telling.asked = true
                return .ask
            }
            guard !telling.ended else { return .nothing }
            switch answer {
            case .failure(let error):
                telling.ended = true
                return .fail(error)
            case .success(let (_, answer)) where answer.delivery == .unanswered:
                telling.ended = true
                return .nothing
            case .success(let (head, answer)):
                let told = telling.headTold ? nil : head
                telling.headTold = true
                let (limit, pieceBytes, turnBytes, pause) = Self.pace(answer)
                var pieces: [Data] = []
                while telling.bodyTold < limit, pieces.count * pieceBytes < turnBytes {
                    let count = min(pieceBytes, limit - telling.bodyTold)
                    pieces.append(Data(answer.body.getBytes(at: answer.body.readerIndex + telling.bodyTold, length: count) ?? []))
                    telling.bodyTold += count
                }
                guard telling.bodyTold >= limit else { return .tell(head: told, pieces: pieces, then: .next(after: pause)) }
                telling.ended = true
                switch answer.delivery {
                case .whole, .trickled, .unanswered: return .tell(head: told, pieces: pieces, then: .finish)
                case .cut: return .tell(head: told, pieces: pieces, then: .fail(URLError(.networkConnectionLost)))
                case .stalled: return .tell(head: told, pieces: pieces, then: .silence)
                }
            }
        }
    }

    /// The body bytes told in all, in pieces of how many bytes, how many a turn, and the pause
    /// between turns.
    private static func pace(_ answer: InProcessAnswer) -> (limit: Int, piece: Int, turn: Int, pause: Duration?) {
        let length = answer.body.readableBytes
        let turn = pieceBytes * piecesPerTurn
        switch answer.delivery {
        case .whole, .unanswered: return (length, pieceBytes, turn, nil)
        case .cut(let after), .stalled(let after): return (min(after, length), pieceBytes, turn, nil)
        case .trickled(let bytes, let every): return (length, max(1, bytes), max(1, bytes), every)
        }
    }

    /// Calls ``startLoading()`` again on the task's queue, once the session's delegate has
    /// taken the pieces told (as a socket's reads wait for the reader: a client that cancels
    /// hears little more), and after `pause`.
    private func turn(after pause: Duration?) {
        let asking = Asking(urlProtocol: self, request: request)
        let queue = task.flatMap(InProcessRedirect.session(of:)).map { Delegate(queue: $0.delegateQueue) }
        Task {
            await queue?.drained()
            if let pause { try? await Task.sleep(for: pause) }
            asking.turn()
        }
    }

    /// A session's delegate queue (not `Sendable`), handed to the task that waits for it.
    private struct Delegate: @unchecked Sendable {
        let queue: OperationQueue

        /// Returns once the operations queued so far ran (the queue is serial, as a
        /// `DepotClient`'s session's).
        func drained() async {
            await withCheckedContinuation { continuation in queue.addOperation { continuation.resume() } }
        }
    }

    /// This protocol and its request (neither `Sendable`), handed to the task that asks the
    /// host; the protocol is touched there only through its lock and URLSession's task.
    private struct Asking: @unchecked Sendable {
        let urlProtocol: InProcessURLProtocol
        let request: URLRequest

        func ask() async {
            let result: Result<(HTTPURLResponse, InProcessAnswer), any Error>
            do {
                result = .success(try await InProcessURLProtocol.answer(request, task: urlProtocol.task))
            } catch {
                result = .failure(error)
            }
            urlProtocol.telling.withLock { $0.answer = result }
            turn()
        }

        /// Back to the task's queue, whose resume calls startLoading() there; a task cancelled
        /// meanwhile is left as it is.
        func turn() {
            #if canImport(FoundationNetworking)
            guard urlProtocol.task?.state == .running else { return }
            urlProtocol.task?.suspend()
            urlProtocol.task?.resume()
            #else
            urlProtocol.startLoading()
            #endif
        }
    }

    /// The host's answer to `request`, its head as URLSession gives it; a redirect the session's
    /// delegate follows is followed.
    private static func answer(_ request: URLRequest, task: URLSessionTask?) async throws -> (HTTPURLResponse, InProcessAnswer) {
        var request = request
        for _ in 0...redirectLimit {
            guard let url = request.url, let host = url.host else { throw URLError(.badURL) }
            let answer = try await exchange(
                InProcessRequest(method: request.httpMethod ?? "GET", target: target(of: url), headers: fields(of: request), body: body(of: request)),
                host: host
            )
            var headers: [String: String] = [:]
            for field in answer.headers {
                headers[field.name.rawName] = headers[field.name.rawName].map { "\($0), \(field.value)" } ?? field.value
            }
            guard let head = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                throw URLError(.badServerResponse)
            }
            guard let redirected = await InProcessRedirect.follow(head, of: request, task: task) else { return (head, answer) }
            request = redirected
        }
        throw URLError(.httpTooManyRedirects)
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
