import GRDB

extension VersionTables {
    /// Removes the versions retired before `cutoff` (seconds) that no channel and no rollout
    /// holds; returns how many went. In the caller's transaction.
    static func removeRetiredVersions(before cutoff: Int64, in db: Database) throws -> Int {
        try db.execute(
            sql: """
                DELETE FROM file_version WHERE retired_at IS NOT NULL AND retired_at < ? AND NOT EXISTS (
                    SELECT 1 FROM channel_file WHERE channel_file.path = file_version.path AND channel_file.version = file_version.version
                ) AND NOT EXISTS (
                    SELECT 1 FROM rollout_file WHERE rollout_file.path = file_version.path AND rollout_file.version = file_version.version)
                """,
            arguments: [cutoff]
        )
        return db.changesCount
    }

    /// Adds to `table` (a temporary table of one `sha256` column) every version's content,
    /// retired versions included.
    static func addContents(to table: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO \(table) (sha256) SELECT sha256 FROM file_version")
    }

    /// The SHA-256 of every version's content, retired versions included.
    static func contents(in db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT sha256 FROM file_version")
    }

    /// The gzip files (`{sha256}.gz`) of every version.
    static func gzipFiles(in db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT sha256 || '.gz' FROM file_version WHERE gzip_size IS NOT NULL")
    }

    /// Inserts the next version of `path`.
    static func newVersion(of path: String, blob: BlobRecord, contentType: String, now: Int64, in db: Database) throws -> FileVersion {
        let lastVersion = try Int64.fetchOne(db.cachedStatement(sql: "SELECT last_version FROM path_sequence WHERE path = ?"), arguments: [path]) ?? 0
        // A path never published has no version of this second.
        let sameSecond =
            try lastVersion > 0
            && Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM file_version WHERE path = ? AND published_at = ?)"),
                arguments: [path, now]
            ) ?? false
        let version = FileVersion(
            path: path,
            version: lastVersion + 1,
            size: blob.size,
            sha256: blob.sha256,
            md5: blob.md5,
            contentType: contentType,
            publishedAt: now,
            lastModifiedIsStrong: !sameSecond,
            gzipSize: blob.gzip?.size,
            gzipSHA256: blob.gzip?.sha256,
            retiredAt: nil
        )
        try version.insert(db)
        try db.cachedStatement(
            sql: "INSERT INTO path_sequence (path, last_version) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET last_version = excluded.last_version"
        ).execute(arguments: [path, version.version])
        return version
    }

    /// Retires the versions of `path` but its last `keeping`, except those a channel or a live
    /// rollout holds.
    static func retireOldVersions(of path: String, keeping: Int, now: Int64, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE file_version SET retired_at = ? WHERE path = ? AND retired_at IS NULL
                AND version NOT IN (SELECT version FROM file_version WHERE path = ? ORDER BY version DESC LIMIT ?)
                AND NOT EXISTS (SELECT 1 FROM channel_file WHERE channel_file.path = file_version.path AND channel_file.version = file_version.version)
                AND NOT EXISTS (SELECT 1 FROM rollout_file WHERE rollout_file.path = file_version.path AND rollout_file.version = file_version.version)
                """
        ).execute(arguments: [now, path, path, keeping])
    }
}
