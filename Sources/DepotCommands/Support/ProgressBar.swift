import DepotManifest
import DepotServer
import Foundation
import Synchronization

/// A one-line progress bar on standard error: bytes, rate and time left. Drawn only when
/// standard error is a terminal, at most ten times a second.
final class ProgressBar: Sendable {
    private struct State {
        var done: Int64 = 0
        var lastDrawn: ContinuousClock.Instant?
        var rate = TransferRate()
    }

    let label: String
    let total: Int64
    let isEnabled: Bool
    /// Where it is drawn (standard error).
    let errors: TextWriter
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    init(label: String, total: Int64, isEnabled: Bool, errors: TextWriter) {
        self.errors = errors
        self.label = label
        self.total = total
        self.isEnabled = isEnabled
    }

    func advance(by count: Int) {
        update { $0 += Int64(count) }
    }

    func set(done: Int64) {
        update { $0 = done }
    }

    private func update(_ change: (inout Int64) -> Void) {
        guard isEnabled else { return }
        let line: String? = state.withLock { state in
            change(&state.done)
            let now = ContinuousClock.now
            let elapsed = now - start
            state.rate.add(bytes: state.done, at: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            if let last = state.lastDrawn, now - last < .milliseconds(100), state.done < total { return nil }
            state.lastDrawn = now
            return render(done: state.done, rate: state.rate)
        }
        if let line { errors.write(line) }
    }

    /// Clears the bar so the summary line takes its place.
    func finish() {
        guard isEnabled else { return }
        errors.write("\r\u{1B}[K")
    }

    /// The bar for `done` bytes at `rate` (``TransferRate``): the rate and time left read
    /// `…` until the rate is known.
    func render(done: Int64, rate: TransferRate) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 24
        let filled = Int(fraction * Double(width))
        let speed = rate.bytesPerSecond.map { "\(ByteCountText(Int64($0)))/s" } ?? "… /s"
        let eta = rate.secondsLeft(for: total - done).map { "\($0 / 60):\(String(format: "%02d", $0 % 60))" } ?? "…"
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\r\u{1B}[K[\(bar)] \(ByteCountText(done)) / \(ByteCountText(total))  \(speed)  ETA \(eta)  \(label)"
    }
}
