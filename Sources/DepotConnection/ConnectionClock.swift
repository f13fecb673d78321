import NIOCore

/// The time connection deadlines (``ConnectionLimits``) are judged by: the system's monotonic
/// clock, or a test's, which moves only when the test moves it. The checks still run every
/// ``ConnectionLimits/checkInterval`` of real time; what they judge is this clock's reading.
public struct ConnectionClock: Sendable {
    /// The time now, as a duration since an arbitrary fixed point.
    public let now: @Sendable () -> Duration

    public init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// The system's monotonic clock (NIO's uptime).
    public static let system = ConnectionClock { .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds)) }

    /// A clock that never moves: no deadline ever passes. A server under test runs on it unless
    /// the test gives a clock of its own, so that a loaded machine's slowness never closes a
    /// connection a test is using.
    public static let stopped = ConnectionClock { .zero }
}
