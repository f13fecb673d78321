import Prometheus

/// What the variant maker reports at `/metrics` (``VariantMaker``), made from the server's
/// registry (``DepotMetrics/registry``):
///
/// - `depot_variant_queue_contents`: contents waiting for their variants, the one being made
///   included;
/// - `depot_variant_buffered_bytes`: bytes of stored files the maker holds in memory now;
/// - `depot_variant_requests_refused_total`: requests refused because
///   ``VariantConfiguration/maximumPending`` contents were waiting.
struct VariantMetrics: Sendable {
    private let queued: Gauge
    /// The gauge of ``BufferedBytes``.
    let buffered: Gauge
    private let refused: Counter

    init(registry: PrometheusCollectorRegistry) {
        queued = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                subsystem: "variant",
                metricName: "queue",
                unitName: "contents",
                helpText: "Contents waiting for their brotli and zstd variants, the one being made included"
            )
        )
        buffered = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                subsystem: "variant",
                metricName: "buffered",
                unitName: "bytes",
                helpText: "Bytes of stored files the variant maker holds in memory"
            )
        )
        refused = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                subsystem: "variant",
                metricName: "requests_refused",
                unitName: "total",
                helpText: "Variant requests refused because the queue was full"
            )
        )
    }

    /// Records that `count` contents wait now.
    func recordQueue(_ count: Int) {
        queued.set(Int64(count))
    }

    /// Records a request the full queue refused.
    func recordRefusal() {
        refused.increment()
    }
}
