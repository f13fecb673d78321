extension TestHTTPConnection where Self: ~Copyable {
    /// The value of the metric line `series` (a name with its labels, as `/metrics` writes it),
    /// or 0 when there is none yet. Read with ``TestApplication/metricsToken``, which an
    /// in-process server requires (its requests have no address for the allow-list) and a live
    /// one without a metrics token ignores.
    public mutating func metric(_ series: String) async throws -> Double {
        let authorization = ("Authorization", "Bearer \(TestApplication.metricsToken)")
        let text = try await request("GET", "/metrics", headers: [authorization], body: nil).bodyText
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    /// Waits until the metric `series` reaches `value`, polling every 20 ms for at most
    /// `timeout`; returns whether it did.
    // Hang guard: slowest seen 23 s under two busy loops (the slowest test that waits for a metric).
    public mutating func waitForMetric(_ series: String, toReach value: Double, timeout: Duration = .seconds(300)) async throws -> Bool {
        try await poll(every: .milliseconds(20), for: timeout) { try await metric(series) >= value ? true : nil } ?? false
    }
}
