import Foundation

/// Where health reports go: the one rule (docs/releases.md, "Reports and mirrors").
///
/// Reports count only at the origin, whose rollout gates read them. A mirror counts nothing:
/// a static one refuses them (405), and one that answers 202 would swallow them. Nothing in a
/// list of servers tells the origin from a mirror (a static export answers as the origin does),
/// so reports go only to a server the client was told is the origin:
///
/// - ``DepotClient/Configuration/reportServer`` (`depot sync --report-server URL`) when set;
/// - else the one server of a client given one (`DepotClient(server:)`, `depot sync --server URL`
///   alone): the server it syncs from is the only one it knows, and a static one's refusal is
///   said in the report;
/// - else none: with several servers and none named, the reports wait in `.depot/reports.json`
///   and the report says why (``ReportDelivery/reason``).
///
/// No other server is ever asked, so a 202 from any other server never counts as delivered.
enum ReportDestination: Equatable {
    /// The report server.
    case server(URL)
    /// No report server: why.
    case none(reason: String)

    /// The destination for a client of `servers` (in the order tried) with `named` as its
    /// report server, if any.
    static func choose(named: URL?, servers: [URL]) -> ReportDestination {
        if let named { return .server(ServerURL.base(named)) }
        if servers.count == 1, let only = servers.first { return .server(only) }
        return .none(reason: noServer(among: servers.count))
    }

    /// Why reports wait when a client of `count` servers names none of them the report server.
    static func noServer(among count: Int) -> String {
        "no report server: \(count) servers and none named the origin (use --report-server, or Configuration.reportServer)"
    }
}
