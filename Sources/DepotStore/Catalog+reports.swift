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
        public enum Kind: Int, Sendable, CaseIterable {
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
            var counted = 0
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
                let kinds = try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT kinds FROM report_install WHERE release = ? AND install = ?"),
                    arguments: [report.release, Data(report.install)]
                )
                guard (kinds ?? 0) & report.kind.rawValue == 0 else { continue }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO report_install (release, install, kinds) VALUES (?, ?, ?)
                        ON CONFLICT(release, install) DO UPDATE SET kinds = kinds | excluded.kinds
                        """
                ).execute(arguments: [report.release, Data(report.install), report.kind.rawValue])
                let column = report.kind.column
                try db.cachedStatement(
                    sql: """
                        INSERT INTO report_count (release, minute, \(column)) VALUES (?, ?, 1)
                        ON CONFLICT(release, minute) DO UPDATE SET \(column) = \(column) + 1
                        """
                ).execute(arguments: [report.release, minute])
                counted += 1
            }
            return counted
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
