import DepotStore
import Prometheus
import Synchronization

/// Depot's metrics, kept in a Prometheus registry that the application is given (none is
/// global), and served as text at `/metrics`.
///
/// - `depot_http_requests_total{route,method,status}`: every answer; 304, 206 and 416 counts
///   are its `status` series.
/// - `depot_http_response_bytes_total{route}`: content bytes sent (by `Content-Length`).
/// - `depot_publishes_total{result}` (`published`, `unchanged`) and
///   `depot_publish_duration_seconds`: from the first byte of an upload to its commit.
/// - `depot_delta_bytes_saved_total`: bytes clients did not download thanks to deltas.
/// - `depot_patches_encoded_total{when}` (`publish`, `request`): patches of files encoded, kept or
///   not; `request` counts those a client's first request asked for, at most one per pair.
/// - `depot_packs_made_total{kind}` (`identity`, `br`): page packs made from the stored blobs,
///   kept or not; each is made once, when a client first asks for it (``PagePacks``).
/// - `depot_collections_total`: collection runs finished (retired releases, versions and
///   unreferenced blobs removed); a value that stops growing means collection stopped.
/// - `depot_access_log_dropped_total`: access-log lines dropped because the buffer was full or
///   the log could not be written.
public final class DepotMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// The last hour's answers, a minute a slot, for the dashboard; `nil` (nothing counted)
    /// when the dashboard is off.
    public let traffic: TrafficHistory?
    let publishDuration: DurationHistogram
    let deltaBytesSaved: Counter
    private let patchesEncodedAtPublish: Counter
    private let patchesEncodedOnRequest: Counter
    private let collections: Counter
    private let packsMade: [PagePackRecord.Kind: Counter]
    private let accessLogDropped: Counter
    /// The counters of each response series, made once: the registry's lookup builds label
    /// arrays and takes its lock, on every request otherwise.
    private let responseCounters = Mutex<[ResponseSeries: (requests: Counter, bytes: Counter)]>([:])

    private struct ResponseSeries: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// Methods counted under their own name; any other is `OTHER`, so that clients cannot grow
    /// the number of series.
    static let countedMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "POST", "PATCH", "OPTIONS"]

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

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), traffic: TrafficHistory? = nil) {
        self.registry = registry
        self.traffic = traffic
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
        let patchesEncoded = MetricNameDescriptor(
            namespace: "depot",
            metricName: "patches_encoded",
            unitName: "total",
            helpText: "Patches of files encoded, kept or not: before a publish's commit, or on a client's first request"
        )
        patchesEncodedAtPublish = registry.makeCounter(descriptor: patchesEncoded, labels: [("when", "publish")])
        patchesEncodedOnRequest = registry.makeCounter(descriptor: patchesEncoded, labels: [("when", "request")])
        accessLogDropped = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "depot",
                metricName: "access_log_dropped",
                unitName: "total",
                helpText: "Access-log lines dropped: the buffer was full, or the log could not be written"
            )
        )
        collections = registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "depot", metricName: "collections", unitName: "total", helpText: "Collection runs finished")
        )
        let packs = MetricNameDescriptor(namespace: "depot", metricName: "packs_made", unitName: "total", helpText: "Page packs made, by kind")
        packsMade = [
            .identity: registry.makeCounter(descriptor: packs, labels: [("kind", "identity")]),
            .br: registry.makeCounter(descriptor: packs, labels: [("kind", "br")]),
        ]
    }

    func recordResponse(route: String, method: String, status: Int, contentBytes: Int64) {
        let series = ResponseSeries(route: route, method: Self.countedMethods.contains(method) ? method : "OTHER", status: status)
        let counters = responseCounters.withLock { cache in
            if let counters = cache[series] { return counters }
            let counters = (
                requests: registry.makeCounter(
                    descriptor: Self.requests,
                    labels: [("route", series.route), ("method", series.method), ("status", String(series.status))]
                ),
                bytes: registry.makeCounter(descriptor: Self.responseBytes, labels: [("route", series.route)])
            )
            cache[series] = counters
            return counters
        }
        counters.requests.increment()
        if contentBytes > 0 { counters.bytes.increment(by: contentBytes) }
        traffic?.record(status: status, contentBytes: contentBytes)
    }

    /// Records what a patch saved a client: the full download's size minus the patch's.
    func recordDeltaSaving(_ bytes: Int64) {
        guard bytes > 0 else { return }
        deltaBytesSaved.increment(by: bytes)
        traffic?.recordSaving(bytes)
    }

    /// Records a patch of a file encoded, before a publish's commit or on a client's request.
    func recordPatchEncoded(onRequest: Bool) {
        (onRequest ? patchesEncodedOnRequest : patchesEncodedAtPublish).increment()
    }

    /// Records a page's pack made from the stored blobs.
    func recordPackMade(_ kind: PagePackRecord.Kind) {
        packsMade[kind]?.increment()
    }

    /// Records access-log lines dropped.
    func recordAccessLogDropped(_ lines: Int) {
        accessLogDropped.increment(by: Int64(lines))
    }

    /// Records a finished collection run.
    func recordCollection() {
        collections.increment()
    }

    func recordPublish(duration: Duration, unchanged: Bool) {
        registry.makeCounter(descriptor: Self.publishes, labels: [("result", unchanged ? "unchanged" : "published")]).increment()
        publishDuration.record(duration)
    }
}
