import DepotHTTP
import GRDB

/// The stored block index of a content: the index and the packed blocks, each a blob.
public struct BlockIndexRecord: Hashable, Sendable {
    /// The content indexed.
    public let sha256: String
    public let indexSHA256: String
    public let indexSize: Int64
    public let packedSHA256: String
    public let packedSize: Int64

    public init(sha256: String, indexSHA256: String, indexSize: Int64, packedSHA256: String, packedSize: Int64) {
        self.sha256 = sha256
        self.indexSHA256 = indexSHA256
        self.indexSize = indexSize
        self.packedSHA256 = packedSHA256
        self.packedSize = packedSize
    }

    init(row: Row) {
        self.init(
            sha256: row["sha256"],
            indexSHA256: row["index_sha256"],
            indexSize: row["index_size"],
            packedSHA256: row["packed_sha256"],
            packedSize: row["packed_size"]
        )
    }

    /// The block indexes of those of `contents` that have one, by content: one query for a
    /// page's entries.
    static func fetchAll(for contents: [String], in db: Database) throws -> [String: BlockIndexRecord] {
        guard !contents.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT * FROM block_index WHERE sha256 IN (\(databaseQuestionMarks(count: contents.count)))",
            arguments: StatementArguments(contents)
        )
        return Dictionary(rows.map { (row: Row) in (row["sha256"] as String, Self(row: row)) }, uniquingKeysWith: { first, _ in first })
    }

    static func fetch(for sha256: String, in db: Database) throws -> BlockIndexRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM block_index WHERE sha256 = ?"), arguments: [sha256]).map(Self.init(row:))
    }
}

extension BlobIndex {
    /// The block index of the content `sha256`, if one was made.
    public func blockIndex(of sha256: String) async throws -> BlockIndexRecord? {
        try await database.read { try BlockIndexRecord.fetch(for: sha256, in: $0) }
    }

    /// Records the block index of a content. Releases committed after this list it.
    public func recordBlockIndex(_ record: BlockIndexRecord, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO block_index (sha256, index_sha256, index_size, packed_sha256, packed_size, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [record.sha256, record.indexSHA256, record.indexSize, record.packedSHA256, record.packedSize, now.secondsSince1970]
            )
        }
    }
}
