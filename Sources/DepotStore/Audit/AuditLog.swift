import GRDB

/// One entry of the audit trail: who changed what, when, from where.
public struct AuditRecord: Sendable, Hashable, Codable {
    /// Its place in the trail, from 1; later records have higher ones.
    public var id: Int64
    /// Seconds since 1970.
    public var at: Int64
    /// The token's name (never the token), `rollout-gate` or `server`.
    public var token: String
    /// The client's address, as the server saw it (behind a trusted proxy, the forwarded one).
    public var client: String?
    /// What was done: `publish`, `delete`, `promote`, `rollback`, `rollout-…`, `gate-…`,
    /// `root-served` or `refused`.
    public var action: String
    public var channel: String?
    /// The release's number.
    public var release: Int64?
    /// The channel's document serial after the change.
    public var serial: Int64?
    /// A short note: the publisher's message, a refused scope, a gate's reason.
    public var detail: String?

    public init(
        id: Int64 = 0,
        at: Int64,
        token: String,
        client: String?,
        action: String,
        channel: String? = nil,
        release: Int64? = nil,
        serial: Int64? = nil,
        detail: String? = nil
    ) {
        self.id = id
        self.at = at
        self.token = token
        self.client = client
        self.action = action
        self.channel = channel
        self.release = release
        self.serial = serial
        self.detail = detail
    }
}

/// The audit trail (`audit_record`): who changed what, appended, read a page at a time. It owns
/// the table's SQL.
public struct AuditLog: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The audit trail of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}

extension AuditLog {
    /// Appends `record` to the audit trail (its `id` is given by the catalog).
    public func appendAudit(_ record: AuditRecord) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO audit_record (at, token, client, action, channel, release, serial, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [record.at, record.token, record.client, record.action, record.channel, record.release, record.serial, record.detail]
            )
        }
    }

    /// The newest `limit` records, newest first, of `channel` and of `token` when given, older
    /// than `before` (an `id`) when given: a page of the trail.
    public func auditRecords(channel: String? = nil, token: String? = nil, before: Int64? = nil, limit: Int) async throws -> [AuditRecord] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let channel {
                conditions.append("channel = ?")
                arguments += [channel]
            }
            if let token {
                conditions.append("token = ?")
                arguments += [token]
            }
            if let before {
                conditions.append("id < ?")
                arguments += [before]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            arguments += [limit]
            return try Row.fetchAll(db, sql: "SELECT * FROM audit_record \(filter) ORDER BY id DESC LIMIT ?", arguments: arguments).map { row in
                AuditRecord(
                    id: row["id"],
                    at: row["at"],
                    token: row["token"],
                    client: row["client"],
                    action: row["action"],
                    channel: row["channel"],
                    release: row["release"],
                    serial: row["serial"],
                    detail: row["detail"]
                )
            }
        }
    }
}

extension AuditLog {
    /// Whether the trail holds a record of `action` with `detail`.
    public func hasAudit(action: String, detail: String) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM audit_record WHERE action = ? AND detail = ?)", arguments: [action, detail])
                ?? false
        }
    }
}
