import DepotHTTP
import GRDB

/// A page's pack as stored (`/packs/{page}` or `/packs/{page}.br`): made once, when a client first
/// asks for it, and kept as a blob for as long as its page is stored.
public struct PagePackRecord: Hashable, Sendable {
    /// Which of a page's two packs.
    public enum Kind: String, Hashable, Sendable {
        /// `/packs/{page}`: the members' bytes (gzip variants where they have one), one after
        /// the other.
        case identity
        /// `/packs/{page}.br`: the members' contents as one brotli stream.
        case br
    }

    /// The page's SHA-256.
    public let page: String
    public let kind: Kind
    /// The stored blob, or `nil` for a brotli pack that would save nothing: answered 404, and
    /// never made again.
    public let stored: ContentVariantRecord.Stored?

    public init(page: String, kind: Kind, stored: ContentVariantRecord.Stored?) {
        self.page = page
        self.kind = kind
        self.stored = stored
    }
}

extension BlobIndex {
    /// The stored pack `kind` of the page `page`, if it was made.
    public func pagePack(page: String, kind: PagePackRecord.Kind) async throws -> PagePackRecord? {
        try await database.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT blob_sha256, size FROM page_pack WHERE page = ? AND coding = ?"),
                arguments: [page, kind.rawValue]
            ).map { row in
                let blob: String? = row["blob_sha256"]
                let size: Int64? = row["size"]
                return PagePackRecord(
                    page: page,
                    kind: kind,
                    stored: blob.flatMap { blob in size.map { ContentVariantRecord.Stored(sha256: blob, size: $0) } }
                )
            }
        }
    }

    /// Records a page's pack, made from its stored blobs: its blob, which collection keeps from
    /// now on, or (`stored` nil) that it would save nothing. Nothing is recorded for a page no
    /// longer stored (retention removed it meanwhile): its pack's blob is then collected.
    /// Returns whether the record was made.
    @discardableResult
    public func recordPagePack(_ record: PagePackRecord, now: HTTPDate) async throws -> Bool {
        try await database.write { db in
            guard try ReleaseTables.pageIsStored(record.page, in: db) else { return false }
            try db.execute(
                sql: "INSERT OR REPLACE INTO page_pack (page, coding, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [record.page, record.kind.rawValue, record.stored?.sha256, record.stored?.size, now.secondsSince1970]
            )
            return db.changesCount > 0
        }
    }
}
