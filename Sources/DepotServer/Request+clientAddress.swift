import DepotHTTP
import Hummingbird

extension Request {
    /// The client's address, as the access log names it: the connection's peer, or behind a
    /// proxy in `trustedProxies` the address it forwarded (``ForwardedClient``). `nil` when the
    /// connection has no IP peer. Who may read `/metrics` and the dashboard is decided on it.
    func clientAddress(context: DepotRequestContext, trustedProxies: Set<String>) -> String? {
        context.channel.remoteAddress?.ipAddress.map {
            ForwardedClient.address(peer: $0, forwardedFor: headers[values: .xForwardedFor], trustedProxies: trustedProxies)
        }
    }
}
