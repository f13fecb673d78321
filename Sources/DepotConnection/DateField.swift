import DepotHTTP
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The `Date` field (RFC 9110 §6.6.1) read from the clock for each response and formatted once a
/// second. Both serving paths take `Date` from here, and publish times come from the same clock
/// (`HTTPDate.now()`), so a `Last-Modified` is never later than the `Date` beside it (§8.8.2.1).
/// Owned by one event loop.
struct DateField {
    private var second: Int64 = .min
    private var field = ""

    /// The field for `now`.
    mutating func value(_ now: HTTPDate = .now()) -> String {
        if now.secondsSince1970 != second {
            second = now.secondsSince1970
            field = now.imfFixdate
        }
        return field
    }
}

/// Stamps `Date` from ``DateField`` on the responses of Hummingbird's pipeline, replacing the
/// value of its date cache, which a timer refreshes once a second: up to a second behind, it
/// could precede the `Last-Modified` of something published within that second.
final class DateStampHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var date = DateField()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[.date] = date.value()
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
