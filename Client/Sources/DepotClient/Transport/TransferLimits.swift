import Foundation

/// What a transfer must achieve, or be stopped: a minimum rate over a sliding window, as curl's
/// `--speed-limit` and `--speed-time`, and for documents a deadline for the whole answer. A
/// mirror that trickles bytes, each in time to restart URLSession's idle timeout, would otherwise
/// hold a sync (and its folder's lock) for days. Public so that every other reader of a source
/// (`depot mirror`, `depot import`) is bounded by the same rule.
public struct TransferLimits: Sendable {
    /// Bytes a second the transfer must average over every `window`; 0 turns the check off.
    var minimumBytesPerSecond: Int
    /// Seconds the rate is averaged over.
    var window: TimeInterval
    /// Seconds the whole answer may take, or `nil`.
    var deadline: TimeInterval?
    /// The time the rate and the deadline are judged by (``DepotClient/Configuration/transferClock``).
    var clock: any Clock<Duration> = ContinuousClock()

    /// Limits of `minimumBytesPerSecond` over every `window` seconds (0: none), and a whole
    /// answer within `deadline` seconds when given, judged by `clock`.
    public init(minimumBytesPerSecond: Int, window: TimeInterval, deadline: TimeInterval? = nil, clock: any Clock<Duration> = ContinuousClock()) {
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.window = window
        self.deadline = deadline
        self.clock = clock
    }

    /// Watches `received` (bytes so far) until cancelled; throws ``SyncError`` `.network` once a
    /// limit is broken. `what` names the transfer in the error.
    public func watch(_ received: @Sendable () -> Int64, what: String) async throws {
        guard minimumBytesPerSecond > 0 || deadline != nil else { return try await Task.sleep(for: .seconds(Int64.max >> 32)) }
        try await watch(received, what: what, on: self.clock)
    }

    private func watch<Watch: Clock>(_ received: @Sendable () -> Int64, what: String, on clock: Watch) async throws where Watch.Duration == Duration {
        let start = clock.now
        var rate = TransferRate(minimumBytesPerSecond: minimumBytesPerSecond, window: window)
        let tick = min(1, max(window, 0.01) / 4, deadline.map { max($0, 0.01) / 4 } ?? 1)
        while true {
            try await clock.sleep(until: clock.now.advanced(by: .seconds(tick)), tolerance: nil)
            let elapsed = start.duration(to: clock.now) / .seconds(1)
            if let deadline, elapsed >= deadline {
                throw SyncError(.network, "\(what) did not arrive within \(Self.seconds(deadline))")
            }
            if rate.isTooSlow(total: received(), at: elapsed) {
                throw SyncError(.network, "\(what) arrived slower than \(minimumBytesPerSecond) bytes/s over \(Self.seconds(window))")
            }
        }
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// The rule of ``TransferLimits``'s rate, pure so it is tested as a table: fed the bytes received
/// so far at a moment, it tells whether the last `window` seconds brought fewer than
/// `minimumBytesPerSecond` a second. The first window is judged once it has passed whole.
struct TransferRate {
    let minimumBytesPerSecond: Int
    let window: TimeInterval
    /// (seconds since the start, bytes received by then), oldest first: the newest one at least
    /// `window` old, and every one after it.
    private var samples: [(time: TimeInterval, total: Int64)] = [(0, 0)]

    init(minimumBytesPerSecond: Int, window: TimeInterval) {
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.window = window
    }

    mutating func isTooSlow(total: Int64, at time: TimeInterval) -> Bool {
        guard minimumBytesPerSecond > 0 else { return false }
        samples.append((time, total))
        while samples.count > 1, samples[1].time <= time - window { samples.removeFirst() }
        let span = time - samples[0].time
        guard span >= window else { return false }
        return Double(total - samples[0].total) < Double(minimumBytesPerSecond) * span
    }
}
