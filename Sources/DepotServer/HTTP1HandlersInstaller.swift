import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Puts Depot's NIOHTTP1-level handlers into a connection's pipeline, then leaves: Hummingbird's
/// `additionalChannelHandlers` go after its HTTPTypes codec, where requests are already
/// converted, so they are added from there to their places:
///
/// socket → ``ConnectionActivityHandler`` → … HTTP/1.1 decoder → ``ConnectionDeadlineHandler``
/// → ``DirectResponder`` (answering directly when direct responses are on; in any case keeping
/// the connection's backpressure and its close after the last bytes) → HTTPTypes codec →
/// Hummingbird.
final class HTTP1HandlersInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never
    let limits: ConnectionLimits
    let connections: OpenConnections
    let direct: DirectResponder.Configuration?
    let accessLog: AccessLog?
    let logger: Logger

    init(limits: ConnectionLimits, connections: OpenConnections, direct: DirectResponder.Configuration?, accessLog: AccessLog?, logger: Logger) {
        self.limits = limits
        self.connections = connections
        self.direct = direct
        self.accessLog = accessLog
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let operations = context.pipeline.syncOperations
        guard connections.open() else {
            logger.warning("Connection refused: http.maxConnections reached", metadata: ["limit": "\(limits.maxConnections)"])
            try? operations.addHandler(OverLimitResponder(), position: .first)
            operations.removeHandler(context: context, promise: nil)
            return
        }
        let connections = self.connections
        context.channel.closeFuture.whenComplete { _ in connections.close() }
        if let codec = try? operations.handler(type: HTTP1ToHTTPServerCodec.self) {
            let deadlines = ConnectionDeadlineHandler(limits: limits, logger: logger)
            try? operations.addHandler(deadlines, position: .before(codec))
            try? operations.addHandler(ConnectionActivityHandler(deadlines: deadlines), position: .first)
            let files = direct?.openFiles.cache(on: context.eventLoop)
            try? operations.addHandler(DirectResponder(configuration: direct, files: files, accessLog: accessLog), position: .before(codec))
        }
        operations.removeHandler(context: context, promise: nil)
    }
}

/// Answers a connection over ``ConnectionLimits/maxConnections`` with 503 and closes it, before
/// any request is read. It sits at the socket end, so its bytes pass no HTTP encoder.
final class OverLimitResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let response: ByteBuffer = {
        let body = #"{"error":{"message":"The server has too many connections open"}}"#
        return ByteBuffer(
            string: "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
    }()

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        // Half-close, then read and drop what the client sends for a moment before closing: a
        // close with unread bytes would reset the connection, and the client could lose the 503.
        context.writeAndFlush(wrapOutboundOut(Self.response)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
