/// What a test sends requests through: a real socket (``RawHTTPConnection``), or the
/// application's router in process (``InProcessConnection``), with the same calls, so a test
/// of API behaviour runs without a socket and one of the connection's behaviour with one.
public protocol TestHTTPConnection: ~Copyable {
    /// Sends a request and reads its response.
    mutating func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawHTTPResponse
}

extension RawHTTPConnection: TestHTTPConnection {}

extension TestHTTPConnection where Self: ~Copyable {
    /// Waits until the server serves its public folder: `/readyz` no longer answers the 503 of a
    /// folder being scanned (a first start scans it after listening). Any other answer ends the
    /// wait, so a test of an unready store still sees its 503. The bound only guards a hang.
    // Hang guard: slowest seen 64 s under two busy loops (HealthTests' held scan of 500 files).
    public mutating func waitForPublicFolder(timeout: Duration = .seconds(600)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let response = try await request("GET", "/readyz", headers: [], body: nil)
            guard response.status == 503, response.bodyText.contains("being scanned") else { return }
            guard ContinuousClock.now < deadline else { throw DepotProcessError.timedOut(log: "the public folder was never scanned") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
