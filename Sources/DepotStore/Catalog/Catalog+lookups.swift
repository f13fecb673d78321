import DepotManifest
import GRDB

/// Point lookups of what the server serves, each one indexed read: requests cost the same for
/// 1,000 live files as for 100,000.
extension Catalog {
    /// The version of `path` that `channel` holds, if any. Paths compare as Swift strings do
    /// (canonical equivalence): of the Unicode spellings of one name that catalogs written
    /// before paths were normalized may hold, the newest is served, by either spelling.
    public func liveVersion(of path: String, channel: String = ChannelName.default) async throws -> FileVersion? {
        try await database.read { db in
            try FileVersion.fetchAll(
                db,
                sql: "SELECT file_version.* FROM channel_file JOIN file_version USING (path, version) WHERE channel = ? AND key = ?",
                arguments: [channel, PortablePath.collisionKey(path)]
            )
            .filter { $0.path == path }
            .max { $0.publishedAt < $1.publishedAt }
        }
    }

    /// The blob with SHA-256 `sha256` when a version still refers to it, retired versions
    /// included.
    public func publishedBlob(sha256: String) async throws -> PublishedBlob? {
        try await database.read { try Self.publishedBlob(sha256: sha256, in: $0) }
    }

    /// The stored patch from the content `from` to the content `to`, with that target.
    public func patch(from: String, to: String) async throws -> (patch: DeltaRecord, target: PublishedBlob)? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT blob_sha256, size FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ? AND blob_sha256 IS NOT NULL",
                    arguments: [from, to]
                ),
                let target = try Self.publishedBlob(sha256: to, in: db)
            else { return nil }
            return (DeltaRecord(fromSHA256: from, toSHA256: to, blobSHA256: row["blob_sha256"], size: row["size"]), target)
        }
    }

    /// The SHA-256 of the content `channel` holds at each of `paths` it holds (exactly those
    /// paths): a few hundred paths a query.
    public func liveContent(of paths: some Collection<String>, channel: String = ChannelName.default) async throws -> [String: String] {
        let paths = Array(paths)
        return try await database.read { db in
            var content: [String: String] = [:]
            for start in stride(from: 0, to: paths.count, by: 500) {
                let chunk = Array(paths[start..<min(start + 500, paths.count)])
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT path, sha256 FROM channel_file JOIN file_version USING (path, version)
                        WHERE channel = ? AND path IN (\(databaseQuestionMarks(count: chunk.count)))
                        """,
                    arguments: StatementArguments([channel] + chunk)
                )
                for row in rows { content[row["path"]] = row["sha256"] }
            }
            return content
        }
    }

    /// The paths `channel` holds, with their versions, sorted by path: O(N), for tools and
    /// tests, never for a request.
    public func liveVersions(channel: String = ChannelName.default) async throws -> [FileVersion] {
        try await database.read { db in
            try FileVersion.fetchAll(
                db,
                sql: "SELECT file_version.* FROM channel_file JOIN file_version USING (path, version) WHERE channel = ? ORDER BY path",
                arguments: [channel]
            )
        }
    }

    private static func publishedBlob(sha256: String, in db: Database) throws -> PublishedBlob? {
        try FileVersion.fetchOne(db, sql: "SELECT * FROM file_version WHERE sha256 = ? ORDER BY published_at LIMIT 1", arguments: [sha256])
            .map { PublishedBlob(record: $0.blob, firstPublished: $0.lastModified) }
    }
}
