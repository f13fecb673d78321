import Synchronization

/// What the fleet's requests did, counted as they end: by kind, by status, by server.
struct FleetCounters: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case poll, document, object, report
    }

    var requests: [String: Int] = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, 0) })
    /// Body bytes received (a report's: sent).
    var bytes: [String: Int] = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.rawValue, 0) })
    /// `200`, `304`, `202`, `404`, `429`, `5xx`, `error` (no answer), …
    var statuses: [String: Int] = [:]
    var byServer: [String: Int] = [:]
    /// Seconds spent waiting for answers, by kind: their sum and the longest.
    var waited: [String: Double] = [:]
    var longest: [String: Double] = [:]
    var reportsSent = 0
    var reportsDropped = 0
    /// Installs that moved to a lower release number with no rollback naming the one they held.
    var lostRelease = 0
    /// Installs that moved off a rolled-back release, by the polls they needed (1, 2, >2).
    var backAfterRollback: [String: Int] = [:]
    /// Objects or documents whose bytes were not the ones checked (a server's fault).
    var refused = 0

    mutating func count(_ kind: Kind, server: Int, status: Int?, bytes: Int, seconds: Double) {
        requests[kind.rawValue, default: 0] += 1
        waited[kind.rawValue, default: 0] += seconds
        longest[kind.rawValue] = max(longest[kind.rawValue] ?? 0, seconds)
        self.bytes[kind.rawValue, default: 0] += bytes
        let name = status.map { (500..<600).contains($0) ? "5xx" : String($0) } ?? "error"
        statuses[name, default: 0] += 1
        if status != nil { byServer[String(server), default: 0] += 1 }
    }
}

/// The counters, shared by the workers.
final class SharedCounters: Sendable {
    private let counters = Mutex(FleetCounters())

    func update(_ body: (inout FleetCounters) -> Void) { counters.withLock { body(&$0) } }

    var snapshot: FleetCounters { counters.withLock { $0 } }
}
