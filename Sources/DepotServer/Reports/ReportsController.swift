import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `POST /v1/reports` (``DepotAPI/ReportBatch``): installs' health reports, open to every client
/// like the channel documents, rate-limited per client address. A body that is not entirely
/// valid gets 400 and counts nothing; 202 says how many reports were taken.
struct ReportsController: Sendable {
    let intake: ReportIntake
    let trustedProxies: Set<String>

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.post("/v1/reports", use: receive)
    }

    @Sendable func receive(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let configuration = intake.configuration
        let address = request.clientAddress(context: context, trustedProxies: trustedProxies) ?? "unknown"
        guard intake.admits(address) else {
            throw HTTPError(
                .tooManyRequests,
                headers: [.retryAfter: "1"],
                message: "At most \(configuration.perAddressPerSecond) report requests a second from one address (reports.perAddressPerSecond)"
            )
        }
        guard intake.hasRoom else { throw Self.overloaded }
        let body = try await request.body.collect(upTo: configuration.maxBodyBytes)
        guard let batch = try? APIJSON.decode(ReportBatch.self, from: body.readableBytesView) else {
            throw HTTPError(
                .badRequest,
                message: #"The body must be {"reports": [{"release": "<id>", "install": "<hex SHA-256>", "kind": "applied|failed|healthy"}]}"#
            )
        }
        guard batch.reports.count <= configuration.maxPerRequest else {
            throw HTTPError(.contentTooLarge, message: "At most \(configuration.maxPerRequest) reports a request (reports.maxPerRequest)")
        }
        let network = ReportNetwork.of(address)
        let now = intake.now().secondsSince1970
        let reports = try batch.reports.enumerated().map { index, report in
            guard let parsed = Self.parse(report, network: network, receivedAt: now) else {
                throw HTTPError(
                    .badRequest,
                    message:
                        "Report \(index + 1) is not a report: release and install are lower-case hex SHA-256, kind applied, failed or healthy, "
                        + "channel a channel name, reason at most \(ReportBatch.Report.maximumReasonBytes) bytes"
                )
            }
            return parsed
        }
        // At debug: anyone can send these, and a forger must not fill the log. The reason is
        // escaped as the audit trail escapes what it quotes: a line break or a terminal escape
        // in it cannot pass for a line of the server's own (issue 57).
        for report in batch.reports where report.kind == ReportBatch.Report.Kind.failed.rawValue {
            context.logger.debug(
                "Install reported a failure",
                metadata: ["release": "\(report.release.prefix(12))", "reason": "\(AuditText.escaped(report.reason ?? ""))"]
            )
        }
        guard intake.take(reports) else { throw Self.overloaded }
        return try Response.json(ReportsReply(accepted: reports.count), status: .accepted)
    }

    /// More reports wait to be counted than ``ReportConfiguration/maxPending``: try again in a second.
    static let overloaded = HTTPError(
        .serviceUnavailable,
        headers: [.retryAfter: "1"],
        message: "Too many reports waiting to be counted (reports.maxPending)"
    )

    /// The catalog's report for `report`, from `network` at `receivedAt`, or `nil` when it is
    /// malformed.
    static func parse(_ report: ReportBatch.Report, network: [UInt8], receivedAt: Int64) -> ReportLedger.Report? {
        guard ContentAddress.isSHA256(report.release), ContentAddress.isSHA256(report.install),
            let kind = ReportBatch.Report.Kind(rawValue: report.kind),
            (report.reason?.utf8.count ?? 0) <= ReportBatch.Report.maximumReasonBytes, let install = Hex.bytes(report.install),
            report.channel.map({ ChannelName.problem($0) == nil }) ?? true
        else { return nil }
        let counted: ReportLedger.Report.Kind =
            switch kind {
            case .applied: .applied
            case .failed: .failed
            case .healthy: .healthy
            }
        return ReportLedger.Report(
            release: report.release,
            install: install,
            kind: counted,
            channel: report.channel,
            network: network,
            receivedAt: receivedAt,
            reason: report.reason
        )
    }
}
