import DepotConnection
import DepotHTTP
import Foundation
import Synchronization

/// A time a test moves by hand, for the rollouts and reports of a server under test
/// (`RolloutConfiguration.clock`). It starts at the wall clock's time: only what it is given to
/// judge runs on it; documents are still signed and checked by the wall clock.
public final class TestClock: Sendable {
    private let seconds = Mutex<Int64>(Int64(Date().timeIntervalSince1970))

    public init() {}

    public var now: HTTPDate { HTTPDate(secondsSince1970: seconds.withLock { $0 }) }

    public func advance(by step: Int64) { seconds.withLock { $0 += step } }
}

extension ManualClock {
    /// This clock as a server's connection deadlines read it (`ServerConfiguration.connectionClock`):
    /// a connection is closed when the test's time says its deadline has passed, however fast or
    /// slow the machine runs the test.
    public var connectionClock: ConnectionClock { ConnectionClock { [self] in now.offset } }
}
