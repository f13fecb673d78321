import DepotHTTP
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers the commonest requests right after the HTTP/1.1 decoder, below Hummingbird: a GET or
/// HEAD whose answer is a 304, a 200 or a single-range 206. Content held in memory (the
/// manifest, the digest sidecars, small files) is written from memory; stored files are sent
/// with `sendfile(2)` (``DirectBody``). The resource's pre-rendered fields go to NIO's response
/// encoder with `Date` (formatted once a second), `Server` and, when requests are logged,
/// `X-Request-Id`. Everything else (412, 416, multiple ranges, other methods and routes) goes on
/// to Hummingbird untouched.
///
/// Why: on one core, Hummingbird's pipeline alone (an empty 304 from a route) reaches 0.41 of
/// nginx's rate, and Depot's 304 through it 0.29; this path does the same work, decided by the
/// same ``ResourceResponder/answer(method:resource:now:field:)``, at several times that rate.
/// See `docs/performance.md`.
///
/// It answers only when that is safe to do out of Hummingbird's sight:
/// - HTTP/1.1 without a `Connection` field, so the connection stays open as Hummingbird would
///   keep it; no `Expect`, no `A-IM` (RFC 3229 answers are Hummingbird's);
/// - no request handed to Hummingbird is still unanswered, so pipelined responses keep their
///   order;
/// - a close (graceful shutdown) waits until the last direct answer is on the socket.
///
/// Direct answers are counted in the metrics, the test request counter and the access log like
/// any other.
final class DirectResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What every connection's responder shares.
    struct Configuration: Sendable {
        let resolver: ContentResolver
        /// The first path segments of Hummingbird's routes (``Router/routedSegments``).
        let routedSegments: Set<Substring>
        let responder: ResourceResponder
        let recorder: ResponseRecorder
        let accessLog: AccessLog?
        let serverName: String?
        let logger: Logger
        let openFiles: OpenFileCaches
    }

    /// A request part or an inbound event (the client's end of input) that came after it.
    private enum Inbound {
        case part(NIOAny)
        case event(Any)
    }

    private let configuration: Configuration
    /// The files this event loop's answers send from.
    private let files: OpenFileCache
    /// Requests handed to Hummingbird whose response has not ended yet.
    private var unanswered = 0
    /// Whether the parts of the current request go to Hummingbird.
    private var forwarding = true
    private var needsFlush = false
    private var lastWrite: EventLoopFuture<Void>?
    private var closeRequested = false
    /// What arrived while the socket could take no more, in order: taken up when it can. A client
    /// that sends requests without reading the answers thus makes the server hold only what
    /// one read brought in, never a queue of answers (and open files) without bound; socket
    /// reads stop meanwhile. Hummingbird's own answers wait for the socket in the same way.
    private var waiting = CircularBuffer<Inbound>()
    /// A read asked for while requests were waiting.
    private var readDeferred = false
    private var date = DateField()

    init(configuration: Configuration, files: OpenFileCache) {
        self.configuration = configuration
        self.files = files
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if waiting.isEmpty, context.channel.isWritable {
            handle(.part(data), context: context)
        } else {
            waiting.append(.part(data))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if waiting.isEmpty {
            context.fireUserInboundEventTriggered(event)
        } else {
            waiting.append(.event(event))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    /// Reads no further requests while earlier ones wait for the socket.
    func read(context: ChannelHandlerContext) {
        if waiting.isEmpty, context.channel.isWritable {
            context.read()
        } else {
            readDeferred = true
        }
    }

    /// Takes up the requests that waited for the socket, as long as it takes more.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, !waiting.isEmpty {
            while context.channel.isWritable, let next = waiting.popFirst() {
                handle(next, context: context)
            }
            flushIfNeeded(context: context)
            context.fireChannelReadComplete()
        }
        if readDeferred, waiting.isEmpty, context.channel.isWritable {
            readDeferred = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        waiting.removeAll()
        context.fireChannelInactive()
    }

    private func handle(_ inbound: Inbound, context: ChannelHandlerContext) {
        switch inbound {
        case .event(let event):
            context.fireUserInboundEventTriggered(event)
        case .part(let data):
            switch unwrapInboundIn(data) {
            case .head(let head):
                if unanswered == 0, !closeRequested, answer(head, context: context) {
                    forwarding = false
                } else {
                    forwarding = true
                    unanswered += 1
                    context.fireChannelRead(data)
                }
            case .body, .end:
                // A directly answered request's body (a GET seldom has one) is read and dropped.
                if forwarding { context.fireChannelRead(data) }
            }
        }
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closeRequested, let lastWrite else {
            context.close(mode: mode, promise: promise)
            return
        }
        // Hummingbird closes idle connections on shutdown; it has not seen the direct answers,
        // so the last one may still be on its way to the socket.
        closeRequested = true
        context.flush()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        lastWrite.whenComplete { _ in bound.value.close(mode: mode, promise: promise) }
    }

    /// Writes the answer to `head` when it needs neither Hummingbird nor the catalog.
    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        guard head.version == .http1_1,
            head.method == .GET || head.method == .HEAD,
            !head.headers.contains(name: "connection"), !head.headers.contains(name: "expect"), !head.headers.contains(name: "a-im"),
            let (target, route, path) = ContentTarget.resolve(requestTarget: head.uri, routedSegments: configuration.routedSegments),
            let resource = configuration.resolver.cached(target)
        else { return false }
        let start = configuration.accessLog == nil ? nil : ContinuousClock.now
        let now = HTTPDate.now()
        let isHead = head.method == .HEAD
        let headers = head.headers
        let answer = configuration.responder.answer(method: isHead ? .head : .get, resource: resource, now: now) { headers[$0.rawName] }
        // Refusals carry an error body, and multipart bodies several segments: Hummingbird's.
        guard answer.refusal == nil else { return false }
        var body: DirectBody?
        switch answer.body {
        case .none:
            break
        case .content(let storage, let segments, _):
            guard segments.count == 1, case .file(let range) = segments[0],
                let opened = DirectBody(storage: storage, range: range, files: files)
            else { return false }
            body = opened
        }
        var fields = HTTPHeaders(answer.fields.map { ($0.name.rawName, $0.value) })
        fields.add(name: "Date", value: date.value(now))
        if let serverName = configuration.serverName { fields.add(name: "Server", value: serverName) }
        let requestID = configuration.accessLog.map { _ in RequestID().description }
        if let requestID { fields.add(name: "X-Request-Id", value: requestID) }

        // Through the response encoder, which pairs each response with its request's method.
        let promise = context.eventLoop.makePromise(of: Void.self)
        // A file goes out with sendfile(2) after the head: corked, the head shares the first
        // segment with the file's bytes (nginx's `tcp_nopush`), instead of going alone.
        let corked = body?.isFile == true && context.channel.setCork(true)
        let status = HTTPResponseStatus(statusCode: answer.status.code)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: fields))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body.ioData)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
        if let body {
            let channel = context.channel
            // The callback runs on this event loop, where the file's cache lives.
            promise.futureResult.assumeIsolated().whenComplete { _ in
                body.close()
                if corked { _ = channel.setCork(false) }
            }
        }
        lastWrite = promise.futureResult
        needsFlush = true
        let contentBytes = body?.length ?? 0

        configuration.recorder.record(
            method: head.method.rawValue,
            path: path,
            route: route,
            status: answer.status.code,
            contentBytes: contentBytes,
            by: .direct(corked: corked)
        )
        if let accessLog = configuration.accessLog, let requestID, let start {
            var logger = configuration.logger
            logger[metadataKey: "hb.request.id"] = .string(requestID)
            accessLog.log(
                to: logger,
                peer: context.channel.remoteAddress?.ipAddress,
                method: head.method.rawValue,
                path: path,
                status: answer.status.code,
                bytes: answer.status == .notModified ? nil : String(contentBytes),
                start: start
            ) { headers[$0.rawName] }
        }
        return true
    }
}
