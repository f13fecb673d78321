import Hummingbird
import Prometheus

/// `GET /metrics`: Prometheus text. With `metrics.token` set it needs that bearer token;
/// otherwise only the addresses of `metrics.allowedAddresses` may read it (403 for others).
///
/// The address is the client's, not the connection's: behind a reverse proxy listed in
/// `http.trustedProxies`, every connection comes from the proxy (127.0.0.1 behind a local nginx),
/// so the client is read from `X-Forwarded-For` as the access log reads it (``ForwardedClient``).
struct MetricsController: Sendable {
    let metrics: DepotMetrics
    let allowedAddresses: Set<String>
    let trustedProxies: Set<String>
    let authenticator: BearerAuthenticator?

    init(metrics: DepotMetrics, allowedAddresses: Set<String>, trustedProxies: Set<String>, token: String?) {
        self.metrics = metrics
        self.allowedAddresses = allowedAddresses
        self.trustedProxies = trustedProxies
        self.authenticator = token.map { BearerAuthenticator(tokens: [AccessToken(name: "metrics-token", token: $0, scopes: AccessScopes())]) }
    }

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.get("/metrics") { request, context in try serve(request, context: context) }
    }

    func serve(_ request: Request, context: DepotRequestContext) throws -> Response {
        if let authenticator {
            try authenticator.authenticate(request)
        } else {
            guard let client = request.allowListAddress(context: context, trustedProxies: trustedProxies), allowedAddresses.contains(client) else {
                throw HTTPError(.forbidden, message: "Metrics are not available to this address")
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(bytes: metrics.registry.emitToBuffer()))
        )
    }
}
