import DepotHTTP
import HTTPTypes
import Hummingbird

extension Request {
    /// The client's address, as the access log names it: the connection's peer, or behind a
    /// proxy in `trustedProxies` the address it forwarded (``ForwardedClient``). `nil` when the
    /// connection has no IP peer.
    func clientAddress(context: DepotRequestContext, trustedProxies: Set<String>) -> String? {
        context.channel.remoteAddress?.ipAddress.map {
            ForwardedClient.address(peer: $0, forwardedFor: headers[values: .xForwardedFor], trustedProxies: trustedProxies)
        }
    }

    /// The address an allow-list judges (`/metrics`, the dashboard): the client's, when the
    /// request came straight from it or through trusted proxies only; `nil` when it came through
    /// a proxy Depot does not trust (``ForwardedClient/allowListAddress(peer:forwardedFor:forwarded:trustedProxies:)``).
    func allowListAddress(context: DepotRequestContext, trustedProxies: Set<String>) -> String? {
        context.channel.remoteAddress?.ipAddress.flatMap {
            ForwardedClient.allowListAddress(
                peer: $0,
                forwardedFor: headers[values: .xForwardedFor],
                forwarded: headers[values: Self.forwarded] + headers[values: Self.xRealIP],
                trustedProxies: trustedProxies
            )
        }
    }

    private static let forwarded = HTTPField.Name("Forwarded")!
    private static let xRealIP = HTTPField.Name("X-Real-IP")!
}
