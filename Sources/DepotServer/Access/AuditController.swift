import DepotAPI
import DepotHTTP
import DepotStore
import Hummingbird

/// `GET /v1/audit?channel=&token=&before=&limit=`: the audit trail, newest first, as
/// ``DepotAPI/AuditList`` (`depot audit`); needs the `read` scope. `before` pages back: the
/// `id` of the oldest record of the page before.
struct AuditController: Sendable {
    let log: AuditLog

    /// The most records a page holds.
    static let maximumLimit = 10_000

    func addRoutes(to publishing: ScopedRoutes) {
        publishing.get("audit", requires: .read, use: list)
    }

    @Sendable func list(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map {
            guard let limit = Int($0), (1...Self.maximumLimit).contains(limit) else {
                throw HTTPError(.badRequest, message: "limit is a number from 1 to \(Self.maximumLimit)")
            }
            return limit
        }
        let before = try query.get("before").map {
            guard let before = Int64($0) else { throw HTTPError(.badRequest, message: "before is the id of a record") }
            return before
        }
        let records = try await log.auditRecords(
            channel: query.get("channel"),
            token: query.get("token"),
            before: before,
            limit: limit ?? 100
        )
        return try Response.json(AuditList(records: records.map(AuditList.Record.init)))
    }
}

extension AuditList.Record {
    init(_ record: AuditRecord) {
        self.init(
            id: record.id,
            at: HTTPDate(secondsSince1970: record.at).imfFixdate,
            token: record.token,
            client: record.client,
            action: record.action,
            channel: record.channel,
            release: record.release,
            serial: record.serial,
            detail: record.detail
        )
    }
}
