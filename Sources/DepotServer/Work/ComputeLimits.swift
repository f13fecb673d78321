import Configuration

/// The bounds of a ``ComputeOnce``: how many computations run at once (each on a thread of its
/// own) and how many more keys may wait for one. A request past both is told to come back later
/// (503 with `Retry-After`), never queued without bound.
public struct ComputeLimits: Sendable {
    /// Computations running at once, and the threads they run on.
    public var maximumConcurrent: Int
    /// Keys admitted beyond those computing, waiting for a thread.
    public var maximumQueued: Int
    /// Runs on a computing thread before each computation's work: for tests that hold a
    /// computation (the thread stays busy meanwhile) and watch what the server does.
    package var whileComputing: (@Sendable () -> Void)?

    public init(maximumConcurrent: Int = 2, maximumQueued: Int = 64) {
        self.maximumConcurrent = maximumConcurrent
        self.maximumQueued = maximumQueued
    }

    /// Reads `maximumConcurrent` and `maximumQueued` in `scope` (named in messages, `packs`).
    ///
    /// - Throws: ``ConfigurationError`` when `maximumConcurrent` is below 1 or `maximumQueued`
    ///   is negative.
    init(reader: ConfigReader, scope: String) throws {
        let defaults = Self()
        self.init(
            maximumConcurrent: reader.int(forKey: "maximumConcurrent", default: defaults.maximumConcurrent),
            maximumQueued: reader.int(forKey: "maximumQueued", default: defaults.maximumQueued)
        )
        guard (1...64).contains(maximumConcurrent), maximumQueued >= 0 else {
            throw ConfigurationError("\(scope).maximumConcurrent must be between 1 and 64, \(scope).maximumQueued at least 0")
        }
    }
}
