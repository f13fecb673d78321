import Configuration
import DepotConnection
import DepotHTTP

/// How staged rollouts are driven (docs/releases.md, "Rollouts").
public struct RolloutConfiguration: Sendable {
    /// How often the scheduler looks at each running rollout's gate (`rollouts.tickSeconds`):
    /// a failing release is halted at most this long after its reports show it.
    public var tickInterval: Duration
    /// The time rollouts and reports are judged by: the wall clock, or a test's.
    public var clock: @Sendable () -> HTTPDate

    public init(tickInterval: Duration = .seconds(10), clock: @escaping @Sendable () -> HTTPDate = { .now() }) {
        self.tickInterval = tickInterval
        self.clock = clock
    }
}

extension RolloutConfiguration {
    /// Reads the `rollouts.*` keys from the `rollouts` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader rollouts: ConfigReader) throws {
        self.init(tickInterval: rollouts.seconds(forKey: "tickSeconds", default: Self().tickInterval))
        guard tickInterval > .zero else { throw ConfigurationError("rollouts.tickSeconds must be positive") }
    }
}
