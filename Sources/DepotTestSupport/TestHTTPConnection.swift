/// What a test sends requests through: a real socket (``RawHTTPConnection``), or the
/// application's router in process (``InProcessConnection``), with the same calls, so a test
/// of API behaviour runs without a socket and one of the connection's behaviour with one.
public protocol TestHTTPConnection: ~Copyable {
    /// Sends a request and reads its response.
    mutating func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawHTTPResponse
}

extension RawHTTPConnection: TestHTTPConnection {}
