import DepotHTTP
import DepotStore
import Logging
import Synchronization

/// Reports taken by `POST /v1/reports` and not yet counted: held in memory, at most
/// ``ReportConfiguration/maxPending``, and counted into the catalog in one transaction a flush
/// (``ReportFlushService``, and before each rollout tick). A crash loses at most one flush
/// interval of reports, which a health counter can afford; the answer never waits for a disk.
final class ReportIntake: Sendable {
    /// Where the reports are counted.
    let ledger: ReportLedger
    let configuration: ReportConfiguration
    private let pending = Mutex<[ReportLedger.Report]>([])
    /// Requests per client address in the current second, for the rate limit.
    private let requests: Mutex<PerSecondLimit>
    /// The time the rate limit is judged by (``RolloutConfiguration/clock``).
    private let clock: @Sendable () -> HTTPDate

    init(ledger: ReportLedger, configuration: ReportConfiguration, clock: @escaping @Sendable () -> HTTPDate) {
        self.ledger = ledger
        self.configuration = configuration
        self.requests = Mutex(PerSecondLimit(limit: configuration.perAddressPerSecond))
        self.clock = clock
    }

    /// The time now, by the clock reports are judged by.
    func now() -> HTTPDate { clock() }

    /// Whether `address` may make another request this second; counts it under its rate key
    /// (``ReportNetwork/rateKey(of:)``: an IPv6 address's /64, a whole IPv4 address).
    func admits(_ address: String) -> Bool {
        let now = clock().secondsSince1970
        let key = ReportNetwork.rateKey(of: address)
        return requests.withLock { $0.admits(key, now: now) }
    }

    /// Whether a request of up to ``ReportConfiguration/maxPerRequest`` reports would be taken
    /// now: asked before its body is read, so an overloaded server refuses cheaply.
    var hasRoom: Bool {
        pending.withLock { $0.count + configuration.maxPerRequest <= configuration.maxPending }
    }

    /// Takes `reports` to be counted at the next flush; false (taking none) when that would hold
    /// more than ``ReportConfiguration/maxPending``.
    func take(_ reports: [ReportLedger.Report]) -> Bool {
        pending.withLock { pending in
            guard pending.count + reports.count <= configuration.maxPending else { return false }
            pending += reports
            return true
        }
    }

    /// Counts what was taken into the catalog, at `now`'s minute. Returns how many counted.
    @discardableResult
    func flush(now: HTTPDate) async throws -> Int {
        let batch = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        return try await ledger.record(batch, limits: configuration.limits, now: now)
    }
}
