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

extension InstallID {
    /// What a report names this install by for `release`: the SHA-256 of the id, a line feed
    /// and the release id, in hex. The same for every report about one release, so the server
    /// counts the install once; unrelated across releases; never the id itself.
    public func reportHash(release: String) -> String {
        Hex.string(SHA256.hash(data: Data("\(value)\n\(release)".utf8)))
    }
}

extension DepotClient {
    var reportQueue: ReportQueue { context.reportQueue }

    /// The id this install reports under and draws its rollout buckets with, made (and kept in
    /// `.depot/`) on first use. It is never sent: reports carry a hash of it per release.
    public func installID() throws -> InstallID { try context.installID() }

    /// Tells the report server `report` about the release the folder holds, when
    /// ``Configuration/sendsReports`` is on (otherwise does nothing). The report is kept in
    /// `.depot/` first and sent at once; when the report server cannot be reached, does not
    /// take it, or there is none (``ReportDestination``), it waits for the next call or sync
    /// (``reportDelivery()`` says why). Never throws for the network: only for a folder that
    /// cannot be written.
    public func report(_ report: HealthReport) async throws {
        let context = self.context
        guard configuration.sendsReports, let release = currentRelease else { return }
        try context.reportQueue.add(report, release: release.id, channel: release.channel, install: try context.installID())
        await context.sendReports()
    }

    /// What became of the reports: how many wait undelivered, why, and how many the queue's
    /// bound dropped (``ReportDelivery``); `nil` when reports are off.
    public func reportDelivery() throws -> ReportDelivery? {
        guard configuration.sendsReports else { return nil }
        let (queued, status) = try reportQueue.status()
        let server: String? = if case .server(let url) = context.reportDestination { url.redacted } else { nil }
        return ReportDelivery(
            queued: queued,
            reason: queued > 0 ? status.reason : nil,
            dropped: status.dropped,
            capacity: reportQueue.capacity,
            server: server
        )
    }

    /// Sends the waiting reports (``SyncContext/sendReports()``).
    func sendReports() async {
        await context.sendReports()
    }

    /// Sends the waiting reports over `session` (``SyncContext/sendReports(session:)``).
    func sendReports(session: TransferSession) async {
        await context.sendReports(session: session)
    }
}

extension SyncContext {
    var reportQueue: ReportQueue { ReportQueue(folder: folder, capacity: configuration.reportQueueCapacity) }

    /// The install's id (``DepotClient/installID()``), made on first use.
    func installID() throws -> InstallID { try InstallID.load(orCreateIn: folder) }

    /// Sends the waiting reports over a session of their own, bounded as a sync's transfers are
    /// (``Configuration/minimumTransferRate`` over ``Configuration/transferRateWindow``, judged
    /// by ``Configuration/transferClock``): a report server that answers nothing, or trickles,
    /// holds the call (and the start of every sync) for a window, not ``Configuration/documentTimeout``.
    /// Failures leave them waiting.
    func sendReports() async {
        guard configuration.sendsReports else { return }
        let limits = TransferLimits(
            minimumBytesPerSecond: configuration.minimumTransferRate,
            window: configuration.transferRateWindow,
            clock: configuration.transferClock
        )
        let session = TransferSession(configuration: sessionConfiguration(), limits: limits)
        defer { session.finish() }
        await sendReports(session: session)
    }

    /// Where reports go (``ReportDestination``, the one rule).
    var reportDestination: ReportDestination { .choose(named: configuration.reportServer, servers: servers) }

    /// Sends the waiting reports over `session` to the report server (``reportDestination``),
    /// the origin that counts them; they are forgotten only once it took them (202), and wait
    /// for the next time otherwise, its answer kept as why. No other server is asked: a mirror
    /// counts nothing, and one that answered 202 and dropped them would make them vanish. With
    /// no report server they wait, and the queue says why.
    func sendReports(session: TransferSession) async {
        guard configuration.sendsReports else { return }
        let origin: URL
        switch reportDestination {
        case .server(let server): origin = server
        case .none(let reason):
            try? reportQueue.hold(reason: reason)
            return
        }
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
                throw SyncError(.server, "the report server \(origin.redacted) answered \(response.statusCode)")
            }
        }
    }
}
