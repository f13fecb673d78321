import DepotServer
import Foundation
import Synchronization

/// A one-line progress bar on standard error: bytes, rate and time left. Drawn only when
/// standard error is a terminal, at most ten times a second.
final class ProgressBar: Sendable {
    private struct State {
        var done: Int64 = 0
        var lastDrawn: ContinuousClock.Instant?
    }

    let label: String
    let total: Int64
    let isEnabled: Bool
    private let start = ContinuousClock.now
    private let state = Mutex(State())

    init(label: String, total: Int64, isEnabled: Bool = isatty(STDERR_FILENO) == 1) {
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
            if let last = state.lastDrawn, now - last < .milliseconds(100), state.done < total { return nil }
            state.lastDrawn = now
            return render(done: state.done, elapsed: now - start)
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Clears the bar so the summary line takes its place.
    func finish() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func render(done: Int64, elapsed: Duration) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let width = 24
        let filled = Int(fraction * Double(width))
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let eta = rate > 0 ? Int(Double(total - done) / rate) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return
            "\r\u{1B}[K[\(bar)] \(ByteCountText(done)) / \(ByteCountText(total))  \(ByteCountText(Int64(rate)))/s  ETA \(eta / 60):\(String(format: "%02d", eta % 60))  \(label)"
    }
}
