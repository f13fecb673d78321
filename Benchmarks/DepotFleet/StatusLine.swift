import Foundation
import Synchronization

/// Where the status lines go: standard output, or a file; a JSON object a line.
final class StatusOutput: Sendable {
    private let handle: Mutex<FileHandle>

    init(path: String?) throws {
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw CocoaError(.fileWriteNoPermission)
            }
            self.handle = Mutex(handle)
        } else {
            self.handle = Mutex(FileHandle.standardOutput)
        }
    }

    func write(_ line: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        handle.withLock { try? $0.write(contentsOf: data + Data("\n".utf8)) }
    }

    func write(event: String, extra: [String: Any] = [:]) {
        write(extra.merging(["type": event]) { $1 })
    }
}

/// The fleet's state as one line: counters, installs by release, reports, lag.
enum StatusLine {
    /// Turns the counters into lines, with the request rate since the last.
    struct Sampler {
        private var lastRequests = 0
        private var lastTime = ContinuousClock.now
        private var peakRate = 0.0

        mutating func take(_ fleet: Fleet, type: String) -> [String: Any] {
            let counters = fleet.counters.snapshot
            let table = fleet.table
            let numbers = fleet.checked.interned.releases.map(\.number)
            var held: [String: Int] = [:]
            var took: [Int: Int] = [:]
            var failedOver = 0
            var queued = 0
            for index in 0..<table.count {
                held[String(numbers[Int(table.held[index])]), default: 0] += 1
                var bits = table.took[index]
                while bits != 0 {
                    took[bits.trailingZeroBitCount, default: 0] += 1
                    bits &= bits - 1
                }
                if table.server[index] != 0 { failedOver += 1 }
                queued += table.pending[index].count
            }
            let requests = counters.requests.values.reduce(0, +)
            let now = ContinuousClock.now
            let rate = Double(requests - lastRequests) / max(lastTime.duration(to: now).seconds, 0.001)
            (lastRequests, lastTime, peakRate) = (requests, now, max(peakRate, rate))
            let (lag, skipped) = fleet.schedule.lag
            return [
                "type": type,
                "real": fleet.schedule.real(now),
                "sim": fleet.schedule.simulated(now),
                "lag": lag,
                "skipped": skipped,
                "requests": counters.requests,
                "statuses": counters.statuses,
                "bytes": counters.bytes,
                "byServer": counters.byServer,
                "waited": counters.waited,
                "longest": counters.longest,
                "held": held,
                "took": Dictionary(uniqueKeysWithValues: took.map { (String($0.key), $0.value) }),
                "failedOver": failedOver,
                "reports": ["queued": queued, "sent": counters.reportsSent, "dropped": counters.reportsDropped],
                "backAfterRollback": counters.backAfterRollback,
                "lostRelease": counters.lostRelease,
                "refused": counters.refused,
                "rate": rate,
                "peakRate": peakRate,
            ]
        }
    }
}
