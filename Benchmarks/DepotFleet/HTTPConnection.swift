import NIOCore
import NIOHTTP1
import NIOPosix

/// What a server answered: its status, `ETag`, and the body (its length when not kept).
struct HTTPAnswer: Sendable {
    var status: Int
    var entityTag: String?
    /// The body, when the request asked to keep it.
    var body: [UInt8]?
    /// The body's length, in bytes.
    var bodyBytes: Int
}

/// One keep-alive HTTP/1.1 connection, one request at a time (no pipelining), as a phone's
/// URLSession holds one to a host. Written on NIO's channel handlers, not AsyncHTTPClient:
/// the fleet drives tens of thousands of requests a second on two cores, and a request costs
/// here a write and a promise.
final class HTTPConnection: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<AnswerHandler>

    struct Closed: Error, CustomStringConvertible {
        var description: String { "the connection closed before the answer ended" }
    }

    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "no whole answer within \(HTTPConnection.timeout)" }
    }

    /// How long an answer may take, whole: a server that stops answering without closing
    /// (the client's own document timeout does the same) must not hold a worker for ever.
    static let timeout = TimeAmount.seconds(60)

    private init(channel: any Channel, handler: NIOLoopBound<AnswerHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects to `address`.
    static func connect(to address: ServerAddress, group: any EventLoopGroup) async throws -> HTTPConnection {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerHandler())
                }
            }
            .connect(host: address.host, port: address.port)
            .get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: AnswerHandler.self), eventLoop: channel.eventLoop)
        }.get()
        return HTTPConnection(channel: channel, handler: handler)
    }

    /// Whether a request can still be sent (the server did not close it).
    var isActive: Bool { channel.isActive }

    /// Sends a request and waits for its whole answer.
    func send(_ head: HTTPRequestHead, body: [UInt8]? = nil, keepBody: Bool) async throws -> HTTPAnswer {
        let promise = channel.eventLoop.makePromise(of: HTTPAnswer.self)
        let handler = self.handler
        let channel = self.channel
        channel.eventLoop.execute {
            guard channel.isActive else { return promise.fail(Closed()) }
            handler.value.start(promise, keepBody: keepBody)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        let deadline = channel.eventLoop.scheduleTask(in: Self.timeout) {
            // Through the handler, which forgets the promise: a late answer completes nothing.
            handler.value.fail(TimedOut())
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// Collects one answer at a time into the promise of the request that asked for it.
private final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private var promise: EventLoopPromise<HTTPAnswer>?
    private var answer = HTTPAnswer(status: 0, bodyBytes: 0)
    private var keepBody = false
    private var closeAfter = false

    func start(_ promise: EventLoopPromise<HTTPAnswer>, keepBody: Bool) {
        self.promise = promise
        self.keepBody = keepBody
        answer = HTTPAnswer(status: 0, body: keepBody ? [] : nil, bodyBytes: 0)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer.status = Int(head.status.code)
            answer.entityTag = head.headers.first(name: "etag")
            closeAfter = !head.isKeepAlive
        case .body(let buffer):
            answer.bodyBytes += buffer.readableBytes
            if keepBody { answer.body?.append(contentsOf: buffer.readableBytesView) }
        case .end:
            let promise = self.promise
            self.promise = nil
            if closeAfter { context.close(promise: nil) }
            promise?.succeed(answer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(HTTPConnection.Closed())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func fail(_ error: any Error) {
        let promise = self.promise
        self.promise = nil
        promise?.fail(error)
    }
}
