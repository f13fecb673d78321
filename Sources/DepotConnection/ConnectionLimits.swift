/// Limits on connections, so that clients that open many, send slowly or go quiet cannot hold
/// the server's sockets and memory (slowloris, slow uploads, idle keep-alive connections).
public struct ConnectionLimits: Sendable, Equatable {
    /// A keep-alive connection with no request in progress is closed after this long.
    public var idleTimeout: Duration
    /// A request head must arrive whole within this long of its first byte.
    public var requestHeadTimeout: Duration
    /// While a request body is being received, at least this many bytes a second must arrive,
    /// averaged over each ``bodyRateWindow``, or the connection is closed.
    public var minimumBodyBytesPerSecond: Int
    /// The span over which the body rate is averaged.
    public var bodyRateWindow: Duration
    /// The most connections open at once; a further one is answered 503 and closed.
    public var maxConnections: Int

    public init(
        idleTimeout: Duration = .seconds(75),
        requestHeadTimeout: Duration = .seconds(10),
        minimumBodyBytesPerSecond: Int = 1024,
        bodyRateWindow: Duration = .seconds(20),
        maxConnections: Int = 10_000
    ) {
        self.idleTimeout = idleTimeout
        self.requestHeadTimeout = requestHeadTimeout
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
        self.bodyRateWindow = bodyRateWindow
        self.maxConnections = maxConnections
    }

    /// How often a connection checks its deadlines: a deadline is acted on within a quarter of
    /// the shortest limit after it passes.
    var checkInterval: Duration {
        min(idleTimeout, requestHeadTimeout, bodyRateWindow) / 4
    }
}
