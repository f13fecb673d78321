import DepotHTTP
import GRDB

/// A brotli or zstd variant of a content, stored as a blob under its own SHA-256: what
/// `/blobs/{sha256}.br` and `.zst` serve and a release lists beside the gzip variant.
public struct ContentVariantRecord: Hashable, Sendable {
    /// The content it decodes to.
    public let sha256: String
    /// `.br` or `.zstd`.
    public let coding: ContentCoding
    /// The stored blob, or `nil` when the variant was made and not kept (not smaller by the
    /// configured margin), so that it is not made again.
    public let stored: Stored?
    /// The settings it was made with, for the record (`q11w24`).
    public let settings: String

    /// A kept variant's blob: its SHA-256 and size.
    public struct Stored: Hashable, Sendable {
        public let sha256: String
        public let size: Int64

        public init(sha256: String, size: Int64) {
            self.sha256 = sha256
            self.size = size
        }
    }

    public init(sha256: String, coding: ContentCoding, stored: Stored?, settings: String) {
        self.sha256 = sha256
        self.coding = coding
        self.stored = stored
        self.settings = settings
    }

    init?(row: Row) {
        guard let coding = ContentCoding(rawValue: row["coding"]) else { return nil }
        let variant: String? = row["variant_sha256"]
        let size: Int64? = row["size"]
        self.init(
            sha256: row["sha256"],
            coding: coding,
            stored: variant.flatMap { sha256 in size.map { Stored(sha256: sha256, size: $0) } },
            settings: row["settings"]
        )
    }

    /// The variants of those of `contents` that have any, by content: one query for a page's
    /// entries.
    static func fetchAll(for contents: [String], in db: Database) throws -> [String: [ContentVariantRecord]] {
        guard !contents.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT * FROM content_variant WHERE sha256 IN (\(databaseQuestionMarks(count: contents.count)))",
            arguments: StatementArguments(contents)
        )
        return Dictionary(grouping: rows.compactMap(Self.init(row:)), by: \.sha256)
    }

    /// The buckets of `channel`'s files whose content got a kept variant at or after `since`
    /// (seconds): the pages a release built on one from `since` re-encodes, so that it lists
    /// the variants made in the background after that release was committed.
    static func bucketsGainingVariants(channel: String, since: Int64, in db: Database) throws -> Set<UInt32> {
        let contents = try String.fetchAll(
            db.cachedStatement(sql: "SELECT DISTINCT sha256 FROM content_variant WHERE created_at >= ? AND variant_sha256 IS NOT NULL"),
            arguments: [since]
        )
        let buckets = try VersionTables.buckets(of: channel, holding: contents, in: db)
        return Set(buckets.map { UInt32(truncatingIfNeeded: $0) })
    }
}

extension BlobIndex {
    /// The variants made of the content `sha256`, kept or not.
    public func contentVariants(of sha256: String) async throws -> [ContentVariantRecord] {
        try await database.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM content_variant WHERE sha256 = ?"), arguments: [sha256])
                .compactMap(ContentVariantRecord.init(row:))
        }
    }

    /// The variants made of those of `contents` that have any, by content.
    public func contentVariants(of contents: [String]) async throws -> [String: [ContentVariantRecord]] {
        try await database.read { db in
            var found: [String: [ContentVariantRecord]] = [:]
            for start in stride(from: 0, to: contents.count, by: 500) {
                found.merge(try ContentVariantRecord.fetchAll(for: Array(contents[start..<min(start + 500, contents.count)]), in: db)) { $1 }
            }
            return found
        }
    }

    /// Up to `limit` contents some channel lists, of a size in `sizes`, with fewer than `codings`
    /// variants recorded (kept or not): what the background variant maker takes up at start
    /// and after its queue overflowed.
    public func contentsLackingVariants(codings: Int, sizes: ClosedRange<Int64>, limit: Int) async throws -> [String] {
        try await database.read { db in
            let contents = try VersionTables.liveContents(sizes: sizes, in: db)
            let variants = try db.cachedStatement(sql: "SELECT COUNT(*) FROM content_variant WHERE sha256 = ?")
            var lacking: [String] = []
            while lacking.count < limit, let sha256 = try contents.next() {
                if try Int.fetchOne(variants, arguments: [sha256]) ?? 0 < codings { lacking.append(sha256) }
            }
            return lacking
        }
    }

    /// Records a variant made of a content, kept or not. A variant recorded already stays:
    /// releases list it, and its URL is immutable. Releases committed after this list it: a
    /// release re-encodes the pages whose contents gained one since its base release
    /// (``ContentVariantRecord/bucketsGainingVariants(channel:since:in:)``).
    public func recordContentVariant(_ record: ContentVariantRecord, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO content_variant (sha256, coding, variant_sha256, size, settings, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.sha256, record.coding.rawValue, record.stored?.sha256, record.stored?.size, record.settings, now.secondsSince1970,
                ]
            )
        }
    }
}
