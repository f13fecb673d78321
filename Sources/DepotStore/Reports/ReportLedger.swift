import DepotHTTP
import DepotPolicy
import Foundation
import GRDB

/// Installs' reports, counted toward live rollouts' gates as they arrive (docs/releases.md,
/// "Rollouts"): one row an install and counting period of a rollout (its step's start), saying
/// which kinds it reported and from which network. No event is kept, so a report repeated a
/// thousand times counts once; and what one network can store or weigh is bounded.
///
/// The installs' reports counted for the rollouts' gates (`rollout_report`, `rollout_failure`).
/// It owns those tables' SQL.
public struct ReportLedger: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The report ledger of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}

extension ReportLedger {
    /// One report: an install (the SHA-256 of its id and the release, 32 bytes) about a release,
    /// from a network, received at a time.
    public struct Report: Sendable, Hashable {
        public enum Kind: Int, Sendable, Hashable, CaseIterable {
            case applied = 1
            case failed = 2
            case healthy = 4
        }

        public let release: String
        public let install: [UInt8]
        public let kind: Kind
        /// The channel the install follows; `nil` from clients that do not say (counted only
        /// when one live rollout has the release).
        public let channel: String?
        /// The network it came from (``ReportNetwork``).
        public let network: [UInt8]
        /// When the server took it, in seconds since 1970: it counts only toward a period that
        /// had begun by then.
        public let receivedAt: Int64
        /// Why it failed, in the install's words (a failure only).
        public let reason: String?

        public init(
            release: String,
            install: [UInt8],
            kind: Kind,
            channel: String? = nil,
            network: [UInt8] = [],
            receivedAt: Int64 = 0,
            reason: String? = nil
        ) {
            self.reason = kind == .failed ? reason : nil
            self.release = release
            self.install = install
            self.kind = kind
            self.channel = channel
            self.network = network
            self.receivedAt = receivedAt
        }
    }

    /// What the catalog keeps of reports, at most.
    public struct ReportLimits: Sendable, Equatable {
        /// Installs one network counts toward one period of a rollout; more are not kept.
        public var installsPerNetwork: Int
        /// Installs one period of a rollout keeps; more are not kept.
        public var installsPerPeriod: Int

        public init(installsPerNetwork: Int, installsPerPeriod: Int) {
            self.installsPerNetwork = installsPerNetwork
            self.installsPerPeriod = installsPerPeriod
        }
    }

    /// Counts `reports` in one transaction, toward the live rollout each names (its release, and
    /// its channel when it says one) and that rollout's current period, each install once per
    /// period and kind, within `limits`. A report about no live rollout, received before its
    /// period began, or past a limit counts nothing. Returns how many counted.
    public func record(_ reports: [Report], limits: ReportLimits, now: HTTPDate) async throws -> Int {
        guard !reports.isEmpty else { return 0 }
        let minute = now.secondsSince1970 / 60
        return try await database.write { db in
            let live = try RolloutStore.liveSteps(in: db)
                .map {
                    (
                        id: $0["id"] as Int64, channel: $0["channel"] as String, release: $0["release"] as String,
                        period: $0["step_started_at"] as Int64
                    )
                }
            var stored: [String: Int] = [:]
            func count(_ sql: String, _ arguments: StatementArguments, key: String) throws -> Int {
                if let known = stored[key] { return known }
                let value = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
                stored[key] = value
                return value
            }
            let mark = try db.cachedStatement(
                sql: """
                    INSERT INTO rollout_report (rollout, period, install, network, kinds, minute) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(rollout, period, install) DO UPDATE SET kinds = kinds | excluded.kinds WHERE kinds & excluded.kinds = 0
                    """
            )
            // Compiled once for the batch: a primary-key look-up each report.
            let known = try db.cachedStatement(
                sql: "SELECT EXISTS (SELECT 1 FROM rollout_report WHERE rollout = ? AND period = ? AND install = ?)"
            )
            var counted = 0
            for report in reports {
                let candidates = live.filter { $0.release == report.release && (report.channel == nil || $0.channel == report.channel) }
                guard candidates.count == 1, let rollout = candidates.first, report.receivedAt >= rollout.period else { continue }
                if try !(Bool.fetchOne(known, arguments: [rollout.id, rollout.period, Data(report.install)]) ?? false) {
                    let periodKey = "\(rollout.id) \(rollout.period)"
                    let networkKey = periodKey + " " + Hex.string(report.network)
                    let inPeriod = try count(
                        "SELECT COUNT(*) FROM rollout_report WHERE rollout = ? AND period = ?",
                        [rollout.id, rollout.period],
                        key: periodKey
                    )
                    let inNetwork = try count(
                        "SELECT COUNT(*) FROM rollout_report WHERE rollout = ? AND period = ? AND network = ?",
                        [rollout.id, rollout.period, Data(report.network)],
                        key: networkKey
                    )
                    guard inPeriod < limits.installsPerPeriod, inNetwork < limits.installsPerNetwork else { continue }
                    stored[periodKey] = inPeriod + 1
                    stored[networkKey] = inNetwork + 1
                }
                try mark.execute(arguments: [rollout.id, rollout.period, Data(report.install), Data(report.network), report.kind.rawValue, minute])
                guard db.changesCount > 0 else { continue }
                counted += 1
                if let reason = report.reason { try Self.countFailure(reason, of: rollout.id, in: db) }
            }
            return counted
        }
    }

    /// The most reasons a rollout keeps; failures for others count under ``otherReasons``.
    static let maximumReasons = 20
    static let otherReasons = "(other reasons)"

    /// Counts one failure of rollout `rollout` under `reason` (its first line, trimmed).
    private static func countFailure(_ reason: String, of rollout: Int64, in db: Database) throws {
        let line = reason.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !line.isEmpty else { return }
        // Per counted failure, in the batch's transaction: statements compiled once, as the
        // batch's others are.
        let known = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM rollout_failure WHERE rollout = ?"), arguments: [rollout]) ?? 0
        let exists =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM rollout_failure WHERE rollout = ? AND reason = ?)"),
                arguments: [rollout, line]
            ) ?? false
        let counted = exists || known < maximumReasons - 1 ? line : otherReasons
        try db.cachedStatement(
            sql: """
                INSERT INTO rollout_failure (rollout, reason, installs) VALUES (?, ?, 1)
                ON CONFLICT(rollout, reason) DO UPDATE SET installs = installs + 1
                """
        ).execute(arguments: [rollout, counted])
    }

    /// The reasons installs gave most for failures of `rollout`, most first, at most `limit`.
    public func failureReasons(of rollout: Rollout, limit: Int = 3) async throws -> [(reason: String, installs: Int64)] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT reason, installs FROM rollout_failure WHERE rollout = ? ORDER BY installs DESC, reason LIMIT ?",
                arguments: [rollout.id, limit]
            ).map { ($0["reason"], $0["installs"]) }
        }
    }

    /// What installs reported in the current period of `rollout`: the counts, and how many
    /// networks they came from.
    public func gateEvidence(of rollout: Rollout) async throws -> GateEvidence {
        try await database.read { db in
            // Summed in SQL, one row back: a step of a large fleet has tens of thousands of
            // networks, and decoding a row each (bench-fleet: 81,000 at a million installs) made
            // a tenth of the origin's CPU at every tick.
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT SUM(applied) AS applied, SUM(failed) AS failed, SUM(healthy) AS healthy,
                        SUM(applied + failed > 0) AS networks, SUM(failed > 0) AS failingNetworks
                    FROM (
                        SELECT SUM(kinds & 1 != 0) AS applied, SUM(kinds & 2 != 0) AS failed, SUM(kinds & 4 != 0) AS healthy
                        FROM rollout_report WHERE rollout = ? AND period = ? GROUP BY network
                    )
                    """,
                arguments: [rollout.id, rollout.stepStartedAt]
            )
            return GateEvidence(
                counts: ReportCounts(applied: row?["applied"] ?? 0, failed: row?["failed"] ?? 0, healthy: row?["healthy"] ?? 0),
                networks: row?["networks"] ?? 0,
                failingNetworks: row?["failingNetworks"] ?? 0
            )
        }
    }

    /// Per minute, over every period of `rollout`, what installs reported (each install counted
    /// in the minute of its first report of a period): adoption and failures over time.
    public func reportHistory(of rollout: Rollout) async throws -> [(minute: Int64, counts: ReportCounts)] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT minute, SUM(kinds & 1 != 0) AS applied, SUM(kinds & 2 != 0) AS failed, SUM(kinds & 4 != 0) AS healthy
                    FROM rollout_report WHERE rollout = ? GROUP BY minute ORDER BY minute
                    """,
                arguments: [rollout.id]
            ).map { ($0["minute"], ReportCounts(applied: $0["applied"], failed: $0["failed"], healthy: $0["healthy"])) }
        }
    }
}

extension ReportLedger {
    /// Forgets the reports of `rollouts` (ended: no gate weighs them again).
    static func forgetReports(of rollouts: [Int64], in db: Database) throws {
        for rollout in rollouts { try db.execute(sql: "DELETE FROM rollout_report WHERE rollout = ?", arguments: [rollout]) }
    }
}
