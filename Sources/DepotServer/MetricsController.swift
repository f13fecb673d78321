import Hummingbird
import Prometheus

/// `GET /metrics`: Prometheus text, for whom ``MetricsAccess`` admits.
struct MetricsController: Sendable {
    let metrics: DepotMetrics
    let access: MetricsAccess

    init(metrics: DepotMetrics, allowedAddresses: Set<String>, trustedProxies: Set<String>, token: String?) {
        self.metrics = metrics
        self.access = MetricsAccess(allowedAddresses: allowedAddresses, trustedProxies: trustedProxies, token: token)
    }

    func addRoutes(to routes: ScopedRoutes) {
        routes.get("/metrics", gate: access) { _, _, _ in serve() }
    }

    func serve() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: .init(bytes: metrics.registry.emitToBuffer()))
        )
    }
}
