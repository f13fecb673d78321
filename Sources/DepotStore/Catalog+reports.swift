import DepotHTTP
import Foundation
import GRDB

/// Installs' reports about releases, aggregated as they arrive (docs/releases.md, "Rollouts"):
/// per release and minute, how many installs first reported each kind then. No event is kept,
/// only one row per install and release saying which kinds it reported, so a report repeated a
/// thousand times counts once.
extension Catalog {
    /// One report: an install (the SHA-256 of its id and the release, 32 bytes) about a release.
    public struct Report: Sendable, Hashable {
        public enum Kind: Int, Sendable, Hashable, CaseIterable {
            case applied = 1
            case failed = 2
            case healthy = 4

            var column: String {
                switch self {
                case .applied: "applied"
                case .failed: "failed"
                case .healthy: "healthy"
                }
            }
        }

        public let release: String
        public let install: [UInt8]
        public let kind: Kind

        public init(release: String, install: [UInt8], kind: Kind) {
            self.release = release
            self.install = install
            self.kind = kind
        }
    }

    /// Counts `reports` in one transaction, each install once per release and kind, at the
    /// minute of `now`. Reports about releases the catalog does not have are dropped. Returns
    /// how many were counted (the others were repeats or unknown).
    public func record(_ reports: [Report], now: HTTPDate) async throws -> Int {
        guard !reports.isEmpty else { return 0 }
        let minute = now.secondsSince1970 / 60
        return try await database.write { db in
            var known: [String: Bool] = [:]
            // Counted in memory, written once per release and kind.
            var counts: [String: [Report.Kind: Int]] = [:]
            // One statement a report: the row is made, or gains the kind's bit, only when it
            // lacks it; a change means the report counts.
            let mark = try db.cachedStatement(
                sql: """
                    INSERT INTO report_install (release, install, kinds) VALUES (?, ?, ?)
                    ON CONFLICT(release, install) DO UPDATE SET kinds = kinds | excluded.kinds WHERE kinds & excluded.kinds = 0
                    """
            )
            for report in reports {
                let exists =
                    try known[report.release]
                    ?? {
                        let exists =
                            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM release WHERE id = ?)", arguments: [report.release]) ?? false
                        known[report.release] = exists
                        return exists
                    }()
                guard exists else { continue }
                try mark.execute(arguments: [report.release, Data(report.install), report.kind.rawValue])
                if db.changesCount > 0 { counts[report.release, default: [:]][report.kind, default: 0] += 1 }
            }
            for (release, kinds) in counts {
                for (kind, count) in kinds {
                    let column = kind.column
                    try db.execute(
                        sql: """
                            INSERT INTO report_count (release, minute, \(column)) VALUES (?, ?, ?)
                            ON CONFLICT(release, minute) DO UPDATE SET \(column) = \(column) + excluded.\(column)
                            """,
                        arguments: [release, minute, count]
                    )
                }
            }
            return counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        }
    }

    /// The installs that reported about `release` from the minute of `since` on.
    public func reportCounts(release: String, since: Int64) async throws -> ReportCounts {
        try await database.read { db in
            let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT SUM(applied) AS applied, SUM(failed) AS failed, SUM(healthy) AS healthy FROM report_count WHERE release = ? AND minute >= ?",
                arguments: [release, since / 60]
            )
            return ReportCounts(applied: row?["applied"] ?? 0, failed: row?["failed"] ?? 0, healthy: row?["healthy"] ?? 0)
        }
    }

    /// Per minute, from the minute of `since` on, what installs reported about `release`:
    /// adoption and failures over time.
    public func reportHistory(release: String, since: Int64) async throws -> [(minute: Int64, counts: ReportCounts)] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT minute, applied, failed, healthy FROM report_count WHERE release = ? AND minute >= ? ORDER BY minute",
                arguments: [release, since / 60]
            ).map { ($0["minute"], ReportCounts(applied: $0["applied"], failed: $0["failed"], healthy: $0["healthy"])) }
        }
    }
}
