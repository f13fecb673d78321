import DepotManifest
import GRDB

/// Point lookups of what the server serves, each one indexed read: requests cost the same for
/// 1,000 live files as for 100,000.
extension ReleaseStore {
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
        try await database.read { try VersionTables.publishedBlob(sha256: sha256, in: $0) }
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
}

extension ReleaseStore {
    /// The channel `name` as it is now: its release and serial; `nil` when it does not exist.
    public func channel(named name: String) async throws -> ChannelState? {
        try await database.read { db in try ReleaseWriter.channel(name, in: db) }
    }
}
