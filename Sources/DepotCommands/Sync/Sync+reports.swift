import ArgumentParser
import DepotClient
import Foundation

extension Depot.Sync {
    /// The environment variable that names the report server when `--report-server` does not.
    static let reportServerVariable = "DEPOT_REPORT_SERVER"

    /// `--report-server`, else `DEPOT_REPORT_SERVER`, with `--reports`: the one server reports
    /// go to (``DepotClient/Configuration/reportServer``); `nil` leaves the client's rule
    /// (the one `--server` of a sync with no `--fallback-server`; with several, none).
    func reportServerURL(in environment: CommandEnvironment) throws -> URL? {
        guard reports, let text = reportServer ?? environment.variables[Self.reportServerVariable] else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw CommandFailure("--report-server must be an http:// or https:// URL, not \"\(refusedURLText(text))\".", kind: .usage)
        }
        return url
    }

    /// Checks the report options: `--report-server` needs `--reports`, and the queue's bound is
    /// at least 1.
    func checkReportOptions() throws {
        if reportServer != nil, !reports { throw ValidationError("--report-server names where --reports go: add --reports") }
        guard maxQueuedReports >= 1 else { throw ValidationError("--max-queued-reports takes 1 or more") }
    }

    /// The summary's words on reports that wait undelivered or were dropped
    /// (``ReportDelivery/summary``): `; 3 reports queued: no report server (…)`, or nothing.
    static func reportsSummary(_ report: SyncReport) -> String {
        report.reports?.summary.map { "; " + $0 } ?? ""
    }
}
