import NIOCore
import NIOHTTPTypes

/// Delays a connection's close until the writes already issued have reached the socket.
///
/// Hummingbird 2.28.1 closes a connection right after writing the last part of a response when
/// the server is shutting down gracefully (`HTTPConnectionStateHandler`). For a slow reader, NIO
/// still holds unsent bytes at that moment, and closing drops them: the download is cut short.
/// This handler sits between that handler and the socket. It counts responses not yet written
/// out and holds back a close until they are (succeeded or failed), so the client gets every byte. A
/// second close, such as the one at the end of the shutdown grace period, closes at once, and
/// `timeout` bounds the wait.
final class DrainBeforeCloseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    /// Response ends written but not yet on the socket. Writes complete in order, so the end of
    /// a response completing means all of it did: only ends are tracked, one promise a response.
    private var outstandingWrites = 0
    private var heldClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount = .seconds(60)) {
        self.timeout = timeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        outstandingWrites += 1
        let written = promise ?? context.eventLoop.makePromise()
        // The callbacks run on the channel's event loop, where handler and context belong.
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        written.futureResult.hop(to: context.eventLoop).whenComplete { _ in
            let (handler, context) = bound.value
            handler.outstandingWrites -= 1
            if handler.outstandingWrites == 0 { handler.releaseClose(context: context) }
        }
        context.write(data, promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, outstandingWrites > 0, heldClose == nil else {
            if let held = heldClose {
                // Asked again: close now, and answer the held request too.
                heldClose = nil
                timer?.cancel()
                held.promise.map { promise?.futureResult.cascade(to: $0) }
            }
            context.close(mode: mode, promise: promise)
            return
        }
        heldClose = (mode, promise)
        context.flush()
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) { bound.value.handler.releaseClose(context: bound.value.context) }
    }

    private func releaseClose(context: ChannelHandlerContext) {
        guard let held = heldClose else { return }
        heldClose = nil
        timer?.cancel()
        context.close(mode: held.mode, promise: held.promise)
    }
}
