import Prometheus

/// Depot's metrics, kept in a Prometheus registry that the application is given (none is
/// global), and served as text at `/metrics`.
///
/// - `depot_http_requests_total{route,method,status}`: every answer; 304, 206 and 416 counts
///   are its `status` series.
/// - `depot_http_response_bytes_total{route}`: content bytes sent (by `Content-Length`).
/// - `depot_publishes_total{result}` (`published`, `unchanged`) and
///   `depot_publish_duration_seconds`: from the first byte of an upload to its commit.
/// - `depot_delta_bytes_saved_total`: bytes clients did not download thanks to deltas.
public final class DepotMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let publishDuration: DurationHistogram
    let deltaBytesSaved: Counter

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        publishDuration = registry.makeDurationHistogram(
            name: "depot_publish_duration_seconds",
            labels: [],
            buckets: [.milliseconds(10), .milliseconds(100), .seconds(1), .seconds(10), .seconds(60), .seconds(600)],
            help: "Time from the start of an upload to its commit"
        )
        deltaBytesSaved = registry.makeCounter(name: "depot_delta_bytes_saved_total", help: "Bytes clients did not download thanks to deltas")
    }

    func recordResponse(route: String, method: String, status: Int, contentBytes: Int64) {
        registry.makeCounter(
            name: "depot_http_requests_total",
            labels: [("route", route), ("method", method), ("status", String(status))],
            help: "Requests answered, by route, method and status"
        ).increment()
        if contentBytes > 0 {
            registry.makeCounter(name: "depot_http_response_bytes_total", labels: [("route", route)], help: "Content bytes sent, by route")
                .increment(by: contentBytes)
        }
    }

    func recordPublish(duration: Duration, unchanged: Bool) {
        registry.makeCounter(
            name: "depot_publishes_total",
            labels: [("result", unchanged ? "unchanged" : "published")],
            help: "Publishes, by result"
        ).increment()
        publishDuration.record(duration)
    }
}
