import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The child channel of every HTTP/1.1 connection, its pipeline built here in full, in order:
///
/// socket → ``ConnectionActivityHandler`` → HTTP/1.1 encoder and decoder →
/// ``ConnectionDeadlineHandler`` → ``DirectResponder`` → HTTPTypes codec →
/// ``DateStampHandler`` → Hummingbird's connection state → Hummingbird's responder.
///
/// Hummingbird's own `HTTP1Channel` takes extra handlers only after its HTTPTypes codec, where
/// Depot's NIOHTTP1-level handlers cannot sit; building the pipeline here, rather than finding
/// the codec by its type and inserting around it, makes a failure to build it an error of the
/// connection's setup, never a connection without its deadlines, backpressure, direct answers
/// and access log.
package struct DepotHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    package typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    /// What every connection shares.
    package struct Configuration: Sendable {
        /// The HTTP/1.1 decoder's limits on request heads (`http.maxHeader…`).
        var decoderLimits: NIOHTTPDecoderLimitConfiguration
        var limits: ConnectionLimits
        /// The time ``limits`` are judged by.
        var clock: ConnectionClock
        var connections: OpenConnections
        /// Direct answers when on (`http.directResponses`).
        var direct: DirectAnswerConfiguration?
        var accessLog: AccessLog?
        var logger: Logger

        package init(
            decoderLimits: NIOHTTPDecoderLimitConfiguration,
            limits: ConnectionLimits,
            clock: ConnectionClock = .system,
            connections: OpenConnections,
            direct: DirectAnswerConfiguration?,
            accessLog: AccessLog?,
            logger: Logger
        ) {
            self.decoderLimits = decoderLimits
            self.limits = limits
            self.clock = clock
            self.connections = connections
            self.direct = direct
            self.accessLog = accessLog
            self.logger = logger
        }
    }

    package let responder: HTTPChannelHandler.Responder
    package let configuration: Configuration

    package init(responder: @escaping HTTPChannelHandler.Responder, configuration: Configuration) {
        self.responder = responder
        self.configuration = configuration
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try configure(channel.pipeline.syncOperations, channel: channel)
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    package func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }

    /// Adds the connection's handlers to an empty pipeline; over ``ConnectionLimits/maxConnections``
    /// only ``OverLimitResponder``, which answers 503 before any request is read.
    package func configure(_ pipeline: ChannelPipeline.SynchronousOperations, channel: any Channel) throws {
        guard configuration.connections.open() else {
            configuration.logger.warning(
                "Connection refused: http.maxConnections reached",
                metadata: ["limit": "\(configuration.limits.maxConnections)"]
            )
            try pipeline.addHandler(OverLimitResponder())
            return
        }
        let connections = configuration.connections
        channel.closeFuture.whenComplete { _ in connections.close() }
        let deadlines = ConnectionDeadlineHandler(limits: configuration.limits, clock: configuration.clock, logger: configuration.logger)
        try pipeline.addHandler(ConnectionActivityHandler(deadlines: deadlines))
        try pipeline.configureHTTPServerPipeline(
            withPipeliningAssistance: false,  // DirectResponder keeps pipelined answers in order
            withErrorHandling: false,  // Hummingbird answers errors
            withOutboundHeaderValidation: false,  // HTTPTypes validates fields
            withEncoderConfiguration: .init(),
            withDecoderLimitConfiguration: configuration.decoderLimits
        )
        try pipeline.addHandler(deadlines)
        let files = configuration.direct?.openFiles.cache(on: channel.eventLoop)
        try pipeline.addHandler(DirectResponder(configuration: configuration.direct, files: files, accessLog: configuration.accessLog))
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try pipeline.addHandler(DateStampHandler())
        try pipeline.addHandler(HTTPConnectionStateHandler(logger: configuration.logger))
    }
}

/// Answers a connection over ``ConnectionLimits/maxConnections`` with 503 and closes it, before
/// any request is read. It is the pipeline's only handler, so its bytes pass no HTTP encoder.
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

    private var answered = false

    // A connection's pipeline is built before or after it is active, depending on the bootstrap.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
        context.fireChannelActive()
    }

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
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
