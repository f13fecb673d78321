import GRDB

extension VersionTables {
    /// The versions of `path` whose content is not `content`, newest first.
    static func versions(of path: String, without content: String, in db: Database) throws -> [FileVersion] {
        try FileVersion.fetchAll(
            db,
            sql: "SELECT * FROM file_version WHERE path = ? AND sha256 != ? ORDER BY version DESC",
            arguments: [path, content]
        )
    }

    /// A version with the content `from` of a path that has another version, earlier or later,
    /// with the content `to`, one not retired: what a client may be moved to.
    static func otherVersion(with from: String, besides to: String, in db: Database) throws -> FileVersion? {
        try FileVersion.fetchOne(
            db,
            sql: """
                SELECT source.* FROM file_version AS source JOIN file_version AS target ON target.path = source.path
                WHERE source.sha256 = ? AND target.sha256 = ? AND source.version != target.version AND target.retired_at IS NULL
                LIMIT 1
                """,
            arguments: [from, to]
        )
    }

    /// `columns` of a version with each content of `hashes` (some of each, for ``BlobIndex/blobRecords(_:)``).
    static func blobRows(_ hashes: [String], columns: String, in db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: "SELECT DISTINCT \(columns) FROM file_version WHERE sha256 IN (\(databaseQuestionMarks(count: hashes.count)))",
            arguments: StatementArguments(hashes)
        )
    }

    /// The content `sha256` as first published.
    static func publishedBlob(sha256: String, in db: Database) throws -> PublishedBlob? {
        try FileVersion.fetchOne(db, sql: "SELECT * FROM file_version WHERE sha256 = ? ORDER BY published_at LIMIT 1", arguments: [sha256])
            .map { PublishedBlob(record: $0.blob, firstPublished: $0.lastModified) }
    }

    /// The page buckets of `channel`'s files whose content is one of `contents`.
    static func buckets(of channel: String, holding contents: [String], in db: Database) throws -> [Int64] {
        var buckets: [Int64] = []
        for start in stride(from: 0, to: contents.count, by: 500) {
            let chunk = Array(contents[start..<min(start + 500, contents.count)])
            buckets += try Int64.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT channel_file.bucket FROM channel_file JOIN file_version USING (path, version)
                    WHERE channel_file.channel = ? AND channel_file.bucket IS NOT NULL AND file_version.sha256 IN (\(databaseQuestionMarks(count: chunk.count)))
                    """,
                arguments: StatementArguments([channel] + chunk)
            )
        }
        return buckets
    }

    /// The contents some channel lists, of a size in `sizes`, each once.
    static func liveContents(sizes: ClosedRange<Int64>, in db: Database) throws -> FastDatabaseValueCursor<String> {
        try String.fetchCursor(
            db,
            sql:
                "SELECT DISTINCT file_version.sha256 FROM channel_file JOIN file_version USING (path, version) WHERE file_version.size BETWEEN ? AND ?",
            arguments: [sizes.lowerBound, sizes.upperBound]
        )
    }
}
