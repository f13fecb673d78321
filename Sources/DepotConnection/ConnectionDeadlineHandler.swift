import Logging
import NIOCore
import NIOHTTP1

/// Carries out ``ConnectionDeadlines`` for one connection: it sits right after NIO's HTTP/1.1
/// decoder, where it sees every request part and every response part of both serving paths
/// (``DirectResponder``'s and Hummingbird's), and checks the deadlines every
/// ``ConnectionLimits/checkInterval``. ``ConnectionActivityHandler``, at the socket end, tells it
/// when the first bytes of a request arrive.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var deadlines: ConnectionDeadlines
    private let clock: ConnectionClock
    private let logger: Logger
    private var timer: Scheduled<Void>?

    init(limits: ConnectionLimits, clock: ConnectionClock, logger: Logger) {
        self.deadlines = ConnectionDeadlines(limits: limits, now: clock.now())
        self.clock = clock
        self.logger = logger
    }

    private func now() -> Duration { clock.now() }

    func handlerAdded(context: ChannelHandlerContext) {
        deadlines = ConnectionDeadlines(limits: deadlines.limits, now: now())
        scheduleCheck(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    /// Bytes arrived on the socket (from ``ConnectionActivityHandler``).
    func bytesArrived() {
        deadlines.bytesArrived(now: now())
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines.headReceived(now: now())
        case .body(let buffer): deadlines.bodyReceived(buffer.readableBytes)
        case .end: deadlines.requestEnded(now: now())
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        deadlines.readRequested()
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Noted as it passes, with no callback on its promise: what is still unsent is read from
        // the socket's buffer when the deadlines are checked.
        if case .end = unwrapOutboundIn(data) { deadlines.responseEnded(now: now()) }
        context.write(data, promise: promise)
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        let interval = deadlines.limits.checkInterval
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(interval)) {
            let (handler, context) = bound.value
            handler.check(context: context)
        }
    }

    private func check(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        if let expiry = deadlines.check(now: now(), sending: buffered > 0) {
            logger.debug("Connection closed", metadata: ["reason": "\(expiry)", "peer": "\(context.channel.remoteAddress?.description ?? "")"])
            context.close(promise: nil)
            return
        }
        scheduleCheck(context: context)
    }
}

/// Sits at the socket end of the pipeline and tells a ``ConnectionDeadlineHandler`` when bytes
/// arrive: the first byte of a request head starts its deadline, before the decoder has a part
/// to pass on.
final class ConnectionActivityHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadlines: ConnectionDeadlineHandler

    init(deadlines: ConnectionDeadlineHandler) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived()
        context.fireChannelRead(data)
    }
}
