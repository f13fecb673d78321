import DepotHTTP
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// What every connection's ``DirectResponder`` shares: where its answers come from, and what it
/// adds to them.
package struct DirectAnswerConfiguration: Sendable {
    let source: any DirectAnswerSource
    let serverName: String?
    let openFiles: OpenFileCaches
    /// A new request id, as the application's pipeline makes them, for a logged request.
    let requestID: @Sendable () -> String

    package init(source: any DirectAnswerSource, serverName: String?, openFiles: OpenFileCaches, requestID: @escaping @Sendable () -> String) {
        self.source = source
        self.serverName = serverName
        self.openFiles = openFiles
        self.requestID = requestID
    }
}

/// Answers the commonest requests right after the HTTP/1.1 decoder, below Hummingbird: what its
/// ``DirectAnswerSource`` answers (in Depot, a GET or HEAD of a resource at hand whose answer is
/// a 304, a 200 or a single-range 206: `ResourceDirectAnswers`). This handler only writes it:
/// fields to NIO's response encoder with `Date` (formatted once a second), `Server` and, when
/// requests are logged, `X-Request-Id`; content held in memory from memory, stored files with
/// `sendfile(2)` (``DirectBody``). Everything else goes on to Hummingbird untouched.
///
/// Why: on one core, Hummingbird's pipeline alone (an empty 304 from a route) reaches 0.41 of
/// nginx's rate, and Depot's 304 through it 0.29; this path does the same work at several times
/// that rate. See `docs/performance-history.md` (the runs that measured it) and
/// `docs/performance.md` (the current rates).
///
/// It answers only when that is safe to do out of Hummingbird's sight: ``DirectAnswerRule``. The connection's rules, for direct answers and
/// Hummingbird's alike, are ``DirectResponderStateMachine``'s: pipelined answers keep their
/// order, requests wait while the socket is full, and a close waits for the last bytes. With
/// direct answers off (`http.directResponses`) the handler keeps those rules and answers nothing.
///
/// It sees every request and response of the connection, direct or Hummingbird's, so it keeps
/// the access log (``ConnectionAccessLog``): a line when the response's end reaches the socket,
/// with the content bytes that went out and the real duration. Direct answers are recorded
/// (``ResponseRecorder``) like any other.
final class DirectResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request part or an inbound event (the client's end of input) that came after it.
    enum Inbound {
        case part(NIOAny)
        case event(Any)
    }

    /// Answers directly when set; else every request goes to Hummingbird, and the handler only
    /// keeps the connection's rules (backpressure, close after the last bytes).
    private let configuration: DirectAnswerConfiguration?
    /// The files this event loop's answers send from.
    private let files: OpenFileCache?
    private var state = DirectResponderStateMachine<Inbound>()
    private var needsFlush = false
    /// For each request whose response has not ended, in order: whether the connection persists
    /// after that response (RFC 9112 §9.3: not after an HTTP/1.0 request without `keep-alive`,
    /// nor after `Connection: close`). Hummingbird's side of the pipeline sees no HTTP version,
    /// so the rule is kept here, where the request line is still at hand.
    private var persists: [Bool] = []
    /// A request after which the connection closes has been read: what follows it is dropped.
    private var lastRequestRead = false
    private var discardingAfterLastRequest = false
    /// How long a close may wait for the unwritten answers.
    private let drainTimeout: TimeAmount
    private var heldClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?
    private var drainTimer: Scheduled<Void>?
    private var date = DateField()
    /// What the access log is given, when requests are logged.
    private let log: AccessLog?
    /// The connection's access log, from the time the handler is added.
    private var accessLog: ConnectionAccessLog?

    /// A file region longer than this goes out in pieces of this length when requests are
    /// logged, so that a cut download logs the bytes that went out to within a piece.
    static let loggedRegionLength = 1 << 20

    init(configuration: DirectAnswerConfiguration?, files: OpenFileCache?, accessLog: AccessLog? = nil, drainTimeout: TimeAmount = .seconds(60)) {
        self.configuration = configuration
        self.files = files
        self.log = accessLog
        self.drainTimeout = drainTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        accessLog = log.map { ConnectionAccessLog(log: $0, peer: context.channel.remoteAddress) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if state.received(.part(data), isWritable: context.channel.isWritable) == .handle {
            handle(.part(data), context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if state.received(.event(event), isWritable: context.channel.isWritable, isEvent: true) == .handle {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if state.readRequested(isWritable: context.channel.isWritable) == .read { context.read() }
    }

    /// Takes up the requests that waited for the socket, as long as it takes more.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if state.isWaiting {
            while let next = state.takeWaiting(isWritable: context.channel.isWritable) {
                handle(next, context: context)
            }
            flushIfNeeded(context: context)
            context.fireChannelReadComplete()
        }
        if state.deferredReadIsDue(isWritable: context.channel.isWritable) { context.read() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.inactive()
        accessLog?.inactive()
        context.fireChannelInactive()
    }

    private func handle(_ inbound: Inbound, context: ChannelHandlerContext) {
        switch inbound {
        case .event(let event):
            context.fireUserInboundEventTriggered(event)
        case .part(let data):
            let part = unwrapInboundIn(data)
            if case .head = part, lastRequestRead { discardingAfterLastRequest = true }
            // Requests pipelined after the last one are never answered: the connection closes.
            guard !discardingAfterLastRequest else { return }
            switch part {
            case .head(let head):
                persists.append(head.isKeepAlive)
                if !head.isKeepAlive { lastRequestRead = true }
                let logged = accessLog?.begin(head)
                if state.head(answersDirectly: configuration != nil) == .tryDirect, let promise = answer(head, logged: logged, context: context) {
                    state.answeredDirectly()
                    // Only persistent requests are answered directly (DirectAnswerRule).
                    persists.removeFirst()
                    whenWritten(promise.futureResult, logged: logged, context: context)
                } else {
                    state.forwarded()
                    if let logged { accessLog?.forwarded(logged) }
                    context.fireChannelRead(data)
                }
            case .body, .end:
                // A directly answered request's body (a GET seldom has one) is read and dropped.
                if state.forwardsBody { context.fireChannelRead(data) }
            }
        }
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
    }

    /// Hummingbird's response parts: noted in the access log, and the end counted (``whenWritten(_:logged:context:)``).
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if accessLog != nil, head.status.code >= 200 || head.status == .switchingProtocols {
                accessLog?.responseHead(status: Int(head.status.code), requestID: head.headers.first(name: "x-request-id"))
            }
            if persists.first == false, head.status.code >= 200 {
                // RFC 9112 §9.6: the response that ends a connection says so.
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
        case .body(let body):
            guard let logged = accessLog?.current else {
                context.write(data, promise: promise)
                return
            }
            context.write(data, promise: counting(body.readableBytes, of: logged, promise: promise, context: context))
        case .end:
            state.hummingbirdEndedResponse()
            let closes = persists.isEmpty ? false : !persists.removeFirst()
            let written = promise ?? context.eventLoop.makePromise()
            whenWritten(written.futureResult, logged: accessLog?.responseEnded(), context: context)
            if closes {
                // The last response is on the socket: the connection ends (RFC 9112 §9.3), as
                // an HTTP/1.0 client that reads to the end of the connection waits for.
                written.futureResult.hop(to: context.eventLoop).assumeIsolated().whenComplete { _ in
                    if context.channel.isActive { context.close(promise: nil) }
                }
            }
            context.write(data, promise: written)
        }
    }

    /// A promise for a write of `length` content bytes of `logged`'s response, which counts
    /// them as sent when the write completes.
    private func counting(
        _ length: Int,
        of logged: LoggedRequest,
        promise: EventLoopPromise<Void>?,
        context: ChannelHandlerContext
    ) -> EventLoopPromise<Void> {
        logged.queued += Int64(length)
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenSuccess { logged.sent += Int64(length) }
        return written
    }

    /// Counts the response whose end `written` completes as on the socket then, writes its
    /// access-log line, and releases a held close after the last one. Writes complete in order,
    /// so the end of a response completing means all of it did.
    private func whenWritten(_ written: EventLoopFuture<Void>, logged: LoggedRequest?, context: ChannelHandlerContext) {
        // Writes complete on the channel's event loop, where this handler lives.
        written.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            if let logged {
                let completed = if case .success = result { true } else { false }
                self.accessLog?.finish(logged, completed: completed)
            }
            if self.state.responseWritten() == .releaseHeldClose { self.releaseHeldClose(context: context) }
        }
    }

    /// Hummingbird closes a connection right after the last part of a response when the server
    /// shuts down gracefully, and idle connections too; a slow reader may not have all of it yet,
    /// and it has not seen the direct answers at all. The close waits for them.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        switch state.closeRequested(all: mode == .all) {
        case .close:
            context.close(mode: mode, promise: promise)
        case .closeAndReleaseHeld:
            // Asked again (the end of the shutdown grace period): close now, and answer the
            // held request too.
            let held = heldClose
            heldClose = nil
            drainTimer?.cancel()
            held?.promise.map { promise?.futureResult.cascade(to: $0) }
            context.close(mode: mode, promise: promise ?? held?.promise)
        case .hold:
            heldClose = (mode, promise)
            context.flush()
            let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            drainTimer = context.eventLoop.scheduleTask(in: drainTimeout) {
                let (handler, context) = bound.value
                if handler.state.closeTimedOut() == .releaseHeldClose { handler.releaseHeldClose(context: context) }
            }
        }
    }

    private func releaseHeldClose(context: ChannelHandlerContext) {
        guard let held = heldClose else { return }
        heldClose = nil
        drainTimer?.cancel()
        context.close(mode: held.mode, promise: held.promise)
    }

    /// Writes the answer to `head` when it needs neither Hummingbird nor the catalog; returns
    /// the promise of its end's write, or `nil` when it leaves the request to Hummingbird.
    private func answer(_ head: HTTPRequestHead, logged: LoggedRequest?, context: ChannelHandlerContext) -> EventLoopPromise<Void>? {
        guard let configuration, let files, DirectAnswerRule.mayAnswer(head) else { return nil }
        let now = HTTPDate.now()
        guard let answer = configuration.source.answer(to: head, now: now) else { return nil }
        var body: DirectBody?
        if let answered = answer.body {
            guard let opened = DirectBody(content: answered.content, range: answered.range, files: files) else { return nil }
            body = opened
        }
        var fields = answer.fields
        fields.add(name: "Date", value: date.value(now))
        if let serverName = configuration.serverName { fields.add(name: "Server", value: serverName) }
        if let logged {
            let requestID = configuration.requestID()
            fields.add(name: "X-Request-Id", value: requestID)
            logged.entry.requestID = requestID
            logged.entry.status = Int(answer.status.code)
        }

        // Through the response encoder, which pairs each response with its request's method.
        let promise = context.eventLoop.makePromise(of: Void.self)
        // A file goes out with sendfile(2) after the head: corked, the head shares the first
        // segment with the file's bytes (nginx's `tcp_nopush`), instead of going alone.
        let corked = body?.isFile == true && context.channel.setCork(true)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: fields))), promise: nil)
        if let body {
            // Logged, a file goes out in pieces whose writes are counted; bytes in memory go in
            // one write, whole or not at all.
            body.forEachPiece(ofLength: logged == nil ? Int.max : Self.loggedRegionLength) { piece in
                var counted: EventLoopPromise<Void>?
                if let logged {
                    if body.isFile {
                        counted = counting(piece.readableBytes, of: logged, promise: nil, context: context)
                    } else {
                        logged.queued += Int64(piece.readableBytes)
                    }
                }
                context.write(wrapOutboundOut(.body(piece)), promise: counted)
            }
        }
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
        if let body {
            let channel = context.channel
            // The callback runs on this event loop, where the file's cache lives.
            promise.futureResult.assumeIsolated().whenComplete { _ in
                body.close()
                if corked { _ = channel.setCork(false) }
            }
        }
        needsFlush = true
        let contentBytes = body?.length ?? 0

        configuration.source.answered(head, with: answer, contentBytes: contentBytes, corked: corked)
        return promise
    }
}
