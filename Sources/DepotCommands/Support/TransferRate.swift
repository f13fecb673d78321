/// The rate a progress bar shows: bytes over time measured across windows of at least
/// ``minimumWindow`` seconds, smoothed, and nothing until the first window has passed. A bar's
/// first sample is its reference, so bytes a download had before the bar began (a resumed
/// file, a file staged earlier) count for no speed; a count that goes back (a download that
/// restarted) starts a new window. A pure value, tested as a table (`TransferRateTests`).
struct TransferRate: Sendable, Equatable {
    /// The shortest time a rate is measured over, in seconds: over less, a burst of buffered
    /// bytes reads as gigabytes a second.
    static let minimumWindow = 0.5
    /// The weight of the newest window in the smoothed rate.
    static let smoothing = 0.3

    /// Bytes a second, once a window has passed.
    private(set) var bytesPerSecond: Double?
    /// Where the current window began.
    private var windowStart: Sample?

    /// A byte count and when it was taken.
    private struct Sample: Sendable, Equatable {
        let seconds: Double
        let bytes: Int64
    }

    /// Takes the count `bytes` at `seconds` (from any fixed start).
    mutating func add(bytes: Int64, at seconds: Double) {
        guard let start = windowStart, bytes >= start.bytes, seconds >= start.seconds else {
            windowStart = Sample(seconds: seconds, bytes: bytes)
            return
        }
        let elapsed = seconds - start.seconds
        guard elapsed >= Self.minimumWindow else { return }
        let rate = Double(bytes - start.bytes) / elapsed
        bytesPerSecond = bytesPerSecond.map { $0 + Self.smoothing * (rate - $0) } ?? rate
        windowStart = Sample(seconds: seconds, bytes: bytes)
    }

    /// Whole seconds until `remaining` bytes have come at this rate; `nil` while it is unknown
    /// or zero.
    func secondsLeft(for remaining: Int64) -> Int? {
        guard let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return Int((Double(max(remaining, 0)) / bytesPerSecond).rounded(.up))
    }
}
