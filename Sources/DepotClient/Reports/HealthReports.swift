import Crypto
import DepotAPI
import DepotFiles
import DepotHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an install tells the server about a release it holds, for staged rollouts' gates
/// (docs/releases.md, "Rollouts").
public enum HealthReport: Sendable, Equatable {
    /// The release was switched to. `depot sync` and ``DepotClient/sync(progress:)`` report it.
    case applied
    /// The release could not be applied, or the app failed with it: a short reason (at most
    /// 200 bytes are sent).
    case failed(reason: String)
    /// The app opened and used the release. Only the app knows when: it calls
    /// ``DepotClient/report(_:)``.
    case healthy
}

/// Reports waiting to be sent, kept in `.depot/reports.json` as the server takes them
/// (``DepotAPI/ReportBatch/Report``, the install named by its hash) so that an install offline
/// keeps them for a later sync: at most ``capacity``, the oldest dropped first. Each send posts
/// them all to `POST /v1/reports` and forgets them once the server took them (202).
struct ReportQueue {
    typealias Report = ReportBatch.Report

    static let capacity = 100
    static let file = ".depot/reports.json"
    static let lock = ".depot/reports.lock"
    let folder: SyncFolder

    /// Adds `report` about `release` of `channel` from `install` to the queue.
    func add(_ report: HealthReport, release: String, channel: String, install: InstallID) throws {
        let (kind, reason): (Report.Kind, String?) =
            switch report {
            case .applied: (.applied, nil)
            case .failed(let reason): (.failed, Report.reason(cutting: reason))
            case .healthy: (.healthy, nil)
            }
        let pending = Report(release: release, install: install.reportHash(release: release), kind: kind.rawValue, reason: reason, channel: channel)
        try withLock { queue in queue = Array((queue + [pending]).suffix(Self.capacity)) }
    }

    /// Sends every waiting report with `send` (which throws when the server did not take them),
    /// and forgets those sent. A failure keeps them for the next time.
    func flush(_ send: ([Report]) async throws -> Void) async throws {
        let waiting = try withLock { $0 }
        guard !waiting.isEmpty else { return }
        try await send(waiting)
        try withLock { queue in
            // Reports added meanwhile may have pushed the oldest sent ones out: what is left of
            // those sent is the queue's first part.
            let gone = (0...waiting.count).first { queue.starts(with: waiting[$0...]) } ?? waiting.count
            queue.removeFirst(waiting.count - gone)
        }
    }

    /// Runs `body` on the queue under an exclusive lock (the app and a sync may both add), and
    /// saves what it leaves.
    private func withLock<T>(_ body: (inout [Report]) throws -> T) throws -> T {
        try folder.with { folder in
            let lock = try FileLock.acquire(Self.lock, in: folder, exclusive: true)
            defer { lock?.unlock() }
            var queue = (try? folder.read(Self.file).flatMap { try JSONDecoder().decode([Report].self, from: Data($0)) }) ?? []
            let before = queue
            let result = try body(&queue)
            if queue != before { try folder.replace(Self.file, with: Array(try APIJSON.encoder.encode(queue)), durable: false) }
            return result
        }
    }
}

extension InstallID {
    /// What a report names this install by for `release`: the SHA-256 of the id, a line feed
    /// and the release id, in hex. The same for every report about one release, so the server
    /// counts the install once; unrelated across releases; never the id itself.
    public func reportHash(release: String) -> String {
        Hex.string(SHA256.hash(data: Data("\(value)\n\(release)".utf8)))
    }
}

extension DepotClient {
    var reportQueue: ReportQueue { ReportQueue(folder: folder) }

    /// The id this install reports under and draws its rollout buckets with, made (and kept in
    /// `.depot/`) on first use. It is never sent: reports carry a hash of it per release.
    public func installID() throws -> InstallID { try InstallID.load(orCreateIn: folder) }

    /// Tells the server `report` about the release the folder holds, when
    /// ``Configuration/sendsReports`` is on (otherwise does nothing). The report is kept in
    /// `.depot/` first and sent at once; when the server cannot be reached it waits for the next
    /// call or sync. Never throws for the network: only for a folder that cannot be written.
    public func report(_ report: HealthReport) async throws {
        guard configuration.sendsReports, let release = currentRelease else { return }
        try reportQueue.add(report, release: release.id, channel: release.channel, install: try installID())
        await sendReports()
    }

    /// Sends the waiting reports over a session of their own; failures leave them waiting.
    func sendReports() async {
        guard configuration.sendsReports else { return }
        let session = TransferSession(configuration: sessionConfiguration, limits: TransferLimits(minimumBytesPerSecond: 0, window: 30))
        defer { session.finish() }
        await sendReports(session: session)
    }

    /// Where reports go: ``Configuration/reportServer``, or the last of ``servers``.
    var reportServer: URL { configuration.reportServer ?? servers[servers.count - 1] }

    /// Sends the waiting reports over `session` to ``reportServer``, the origin that counts
    /// them; they are forgotten only once it took them (202), and wait for the next time
    /// otherwise. No mirror is asked: a mirror counts nothing, and one that answered 202 and
    /// dropped them would make them vanish.
    func sendReports(session: TransferSession) async {
        guard configuration.sendsReports else { return }
        let origin = reportServer
        try? await reportQueue.flush { reports in
            var request = URLRequest(url: origin.appendingPathComponent("v1/reports"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try APIJSON.encoder.encode(ReportBatch(reports: reports))
            let (response, _) = try await BoundedFetch.run(
                request,
                session: session,
                maximumBytes: 64 * 1024,
                deadline: configuration.documentTimeout
            )
            guard response.statusCode == 202 else {
                throw SyncError(.server, "\(origin.absoluteString) did not take the reports (\(response.statusCode))")
            }
        }
    }
}
