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

    // Computed: MetricNameDescriptor is not Sendable, so it cannot be a stored static.
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "depot",
            subsystem: "http",
            metricName: "requests",
            unitName: "total",
            helpText: "Requests answered, by route, method and status"
        )
    }
    static var responseBytes: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "depot",
            subsystem: "http",
            metricName: "response_bytes",
            unitName: "total",
            helpText: "Content bytes sent, by route"
        )
    }
    static var publishes: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "depot", metricName: "publishes", unitName: "total", helpText: "Publishes, by result")
    }

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        publishDuration = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                metricName: "publish_duration",
                unitName: "seconds",
                helpText: "Time from the start of an upload to its commit"
            ),
            buckets: [.milliseconds(10), .milliseconds(100), .seconds(1), .seconds(10), .seconds(60), .seconds(600)]
        )
        deltaBytesSaved = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                metricName: "delta_bytes_saved",
                unitName: "total",
                helpText: "Bytes clients did not download thanks to deltas"
            )
        )
    }

    func recordResponse(route: String, method: String, status: Int, contentBytes: Int64) {
        registry.makeCounter(descriptor: Self.requests, labels: [("route", route), ("method", method), ("status", String(status))]).increment()
        if contentBytes > 0 {
            registry.makeCounter(descriptor: Self.responseBytes, labels: [("route", route)]).increment(by: contentBytes)
        }
    }

    func recordPublish(duration: Duration, unchanged: Bool) {
        registry.makeCounter(descriptor: Self.publishes, labels: [("result", unchanged ? "unchanged" : "published")]).increment()
        publishDuration.record(duration)
    }
}
