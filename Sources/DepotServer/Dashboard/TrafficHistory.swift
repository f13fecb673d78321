import DepotConnection
import DepotHTTP
import Synchronization

/// Depot's own traffic over the last hour, one slot a minute, for the operator's dashboard: a
/// ring of 60 slots reused as the minutes pass, so its memory never grows.
///
/// Fed by ``DepotMetrics`` from every answer of both serving paths, beside the Prometheus
/// counters; the dashboard reads it here rather than from Prometheus.
public final class TrafficHistory: Sendable {
    /// What one minute saw.
    public struct Minute: Hashable, Sendable, Codable {
        /// The minute's start, in seconds since 1970.
        public var start: Int64
        /// Answers by status class: 2xx, 304, other 1xx and 3xx, 4xx, 5xx.
        public var success = 0
        public var notModified = 0
        public var otherStatus = 0
        public var clientErrors = 0
        public var serverErrors = 0
        /// Content bytes sent.
        public var bytesSent: Int64 = 0
        /// Bytes clients did not download thanks to patches.
        public var bytesSaved: Int64 = 0

        public var requests: Int { success + notModified + otherStatus + clientErrors + serverErrors }

        init(start: Int64) { self.start = start }
    }

    /// The last hour's totals.
    public struct Summary: Hashable, Sendable, Codable {
        public let requests: Int
        public let notModified: Int
        /// 304s as a share of all answers, 0 to 1; 0 without answers.
        public let notModifiedShare: Double
        public let clientErrors: Int
        public let serverErrors: Int
        public let bytesSent: Int64
        public let bytesSaved: Int64

        public init(_ minutes: [Minute]) {
            requests = minutes.reduce(0) { $0 + $1.requests }
            notModified = minutes.reduce(0) { $0 + $1.notModified }
            notModifiedShare = requests > 0 ? Double(notModified) / Double(requests) : 0
            clientErrors = minutes.reduce(0) { $0 + $1.clientErrors }
            serverErrors = minutes.reduce(0) { $0 + $1.serverErrors }
            bytesSent = minutes.reduce(0) { $0 + $1.bytesSent }
            bytesSaved = minutes.reduce(0) { $0 + $1.bytesSaved }
        }
    }

    public static let minutes = 60
    private let slots = Mutex([Minute](repeating: Minute(start: -1), count: TrafficHistory.minutes))
    private let now: @Sendable () -> Int64

    /// - Parameter now: Seconds since 1970; the system clock unless a test sets the time.
    public init(now: @escaping @Sendable () -> Int64 = { HTTPDate.now().secondsSince1970 }) {
        self.now = now
    }

    /// Counts one answer.
    func record(status: Int, contentBytes: Int64) {
        update { minute in
            switch status {
            case 304: minute.notModified += 1
            case 200..<300: minute.success += 1
            case 400..<500: minute.clientErrors += 1
            case 500...: minute.serverErrors += 1
            default: minute.otherStatus += 1
            }
            minute.bytesSent += contentBytes
        }
    }

    /// Counts bytes a patch saved a client.
    func recordSaving(_ bytes: Int64) {
        update { $0.bytesSaved += bytes }
    }

    private func update(_ change: (inout Minute) -> Void) {
        let start = now() / 60 * 60
        slots.withLock { slots in
            let slot = Int(start / 60 % Int64(Self.minutes))
            if slots[slot].start != start { slots[slot] = Minute(start: start) }
            change(&slots[slot])
        }
    }

    /// The last 60 minutes, oldest first, the current one last; minutes without answers are
    /// zeros.
    public func lastHour() -> [Minute] {
        let current = now() / 60 * 60
        let held = slots.withLock { $0 }
        return (0..<Int64(Self.minutes)).reversed().map { age in
            let start = current - age * 60
            let slot = held[Int(start / 60 % Int64(Self.minutes))]
            return slot.start == start ? slot : Minute(start: start)
        }
    }
}
