import DepotAPI
import DepotFiles
import Foundation

/// Reports waiting to be sent, kept in `.depot/reports.json` as the server takes them
/// (``DepotAPI/ReportBatch/Report``, the install named by its hash) so that an install offline
/// keeps them for a later sync: at most ``capacity``, the oldest dropped first. Each send posts
/// them all to `POST /v1/reports` and forgets them once the report server took them (202).
///
/// Beside it, `.depot/reports-delivery.json` (``Status``) keeps why they wait and how many the
/// bound dropped since reports were last delivered (``ReportDelivery``).
@usableFromInline
struct ReportQueue {
    typealias Report = ReportBatch.Report

    /// The bound unless configured (``DepotClient/Configuration/reportQueueCapacity``).
    @usableFromInline static let defaultCapacity = 100
    static let file = ".depot/reports.json"
    static let statusFile = ".depot/reports-delivery.json"
    static let lock = ".depot/reports.lock"
    let folder: SyncFolder
    /// The most reports kept.
    var capacity = ReportQueue.defaultCapacity

    /// What the queue says of its reports' delivery.
    struct Status: Codable, Equatable {
        /// Reports dropped at the bound since reports were last delivered.
        var dropped = 0
        /// Why the reports wait: the last send's failure, or that there is no report server.
        var reason: String?
    }

    /// Adds `report` about `release` of `channel` from `install` to the queue; when the queue is
    /// full, the oldest goes, and is counted (``Status/dropped``).
    func add(_ report: HealthReport, release: String, channel: String, install: InstallID) throws {
        let (kind, reason): (Report.Kind, String?) =
            switch report {
            case .applied: (.applied, nil)
            case .failed(let reason): (.failed, Report.reason(cutting: reason))
            case .healthy: (.healthy, nil)
            }
        let pending = Report(release: release, install: install.reportHash(release: release), kind: kind.rawValue, reason: reason, channel: channel)
        try withLock { queue, status in
            queue.append(pending)
            let over = queue.count - max(1, capacity)
            if over > 0 {
                queue.removeFirst(over)
                status.dropped += over
            }
        }
    }

    /// Sends every waiting report with `send` (which throws when the report server did not take
    /// them), and forgets those sent. A failure keeps them for the next time, and its message
    /// as the reason they wait.
    func flush(_ send: ([Report]) async throws -> Void) async throws {
        let waiting = try withLock { queue, _ in queue }
        guard !waiting.isEmpty else { return }
        do {
            try await send(waiting)
        } catch {
            let reason = (error as? SyncError)?.message ?? "\(error)"
            try withLock { _, status in status.reason = reason }
            throw error
        }
        try withLock { queue, status in
            // Reports added meanwhile may have pushed the oldest sent ones out: what is left of
            // those sent is the queue's first part.
            let gone = (0...waiting.count).first { queue.starts(with: waiting[$0...]) } ?? waiting.count
            queue.removeFirst(waiting.count - gone)
            status = Status()
        }
    }

    /// Keeps the reports without sending them, and `reason` as why they wait.
    func hold(reason: String) throws {
        try withLock { queue, status in
            if !queue.isEmpty { status.reason = reason }
        }
    }

    /// How many reports wait, and the queue's status.
    func status() throws -> (queued: Int, status: Status) {
        try withLock { queue, status in (queue.count, status) }
    }

    /// The most bytes `reports.json` of `capacity` reports is read at: a report is at most about
    /// 600 bytes (a reason is cut at 200), so a file past this was not written by the queue.
    /// From 1 MiB to 256 MiB.
    static func maximumBytes(_ capacity: Int) -> Int { capacity >= 256 << 10 ? 256 << 20 : max(1 << 20, capacity * 1024) }

    /// The bytes of `path` when it is a regular file of at most `bound` bytes; otherwise (a FIFO,
    /// which would block the read, a device, a file grown without bound by another process)
    /// `nil`, as for a file that cannot be decoded: the queue starts over.
    private static func read(_ path: String, in folder: ContainedFolder, bound: Int) throws -> [UInt8]? {
        guard let status = try folder.status(of: path), status.st_size <= bound else { return nil }
        return try folder.read(path, bound: bound)
    }

    /// Runs `body` on the queue and its status under an exclusive lock (the app and a sync may
    /// both add), and saves what it changes.
    private func withLock<T>(_ body: (inout [Report], inout Status) throws -> T) throws -> T {
        try folder.with { folder in
            let lock = try FileLock.acquire(Self.lock, in: folder, exclusive: true)
            defer { lock?.unlock() }
            var queue =
                (try? Self.read(Self.file, in: folder, bound: Self.maximumBytes(capacity)).flatMap {
                    try JSONDecoder().decode([Report].self, from: Data($0))
                }) ?? []
            var status =
                (try? Self.read(Self.statusFile, in: folder, bound: 64 * 1024).flatMap { try JSONDecoder().decode(Status.self, from: Data($0)) })
                ?? Status()
            status.dropped = max(0, status.dropped)
            let before = (queue, status)
            let result = try body(&queue, &status)
            if queue != before.0 { try folder.replace(Self.file, with: Array(try APIJSON.encoder.encode(queue)), durable: false) }
            if status != before.1 { try folder.replace(Self.statusFile, with: Array(try APIJSON.encoder.encode(status)), durable: false) }
            return result
        }
    }
}
