import GRDB

/// One version of a path with the patches kept to it, for the operator's dashboard.
public struct FileHistoryEntry: Hashable, Sendable, Codable {
    /// A patch to this version from an earlier version of the same path.
    public struct Patch: Hashable, Sendable, Codable {
        /// The earlier version.
        public let fromVersion: Int64
        public let size: Int64
        /// What a client holding `fromVersion` saves: the full download (gzip when there is a
        /// gzip variant) less the patch.
        public let bytesSaved: Int64
    }

    public let version: FileVersion
    /// Newest source version first.
    public let patches: [Patch]
    /// Where the version is live: the channels whose release holds it, and `CHANNEL (rollout)`
    /// for each live rollout that brings it.
    public let liveOn: [String]
}

extension Catalog {
    /// Every recorded version of `path`, newest first, each with the patches kept to it: two
    /// indexed reads for the path, whatever the size of the catalog.
    public func fileHistory(path: String) async throws -> [FileHistoryEntry] {
        try await database.read { db in
            let versions = try FileVersion.fetchAll(db, sql: "SELECT * FROM file_version WHERE path = ? ORDER BY version DESC", arguments: [path])
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT d.to_sha256, d.from_sha256, d.size, source.version AS from_version
                    FROM file_version AS target
                    JOIN file_delta AS d ON d.to_sha256 = target.sha256 AND d.blob_sha256 IS NOT NULL
                    JOIN file_version AS source ON source.path = target.path AND source.sha256 = d.from_sha256
                    WHERE target.path = ?
                    ORDER BY source.version DESC
                    """,
                arguments: [path]
            )
            var live: [Int64: [String]] = [:]
            let holders = try Row.fetchAll(
                db,
                sql: """
                    SELECT version, channel AS place FROM channel_file WHERE path = ?1
                    UNION ALL SELECT f.version, r.channel || ' (rollout)' FROM rollout_file f JOIN rollout r ON r.id = f.rollout
                    WHERE f.path = ?1 AND r.ended_at IS NULL
                    ORDER BY 2
                    """,
                arguments: [path]
            )
            for row in holders { live[row["version"], default: []].append(row["place"]) }
            var patches: [String: [(from: String, fromVersion: Int64, size: Int64)]] = [:]
            for row in rows { patches[row["to_sha256"], default: []].append((row["from_sha256"], row["from_version"], row["size"])) }
            return versions.map { version in
                let full = version.gzipSize ?? version.size
                // One row a patch: from the newest earlier version with its base's content (a
                // content published twice is one patch, not one a version).
                var seen = Set<String>()
                let kept = (patches[version.sha256] ?? []).filter { $0.fromVersion < version.version && seen.insert($0.from).inserted }
                return FileHistoryEntry(
                    version: version,
                    patches: kept.map { FileHistoryEntry.Patch(fromVersion: $0.fromVersion, size: $0.size, bytesSaved: max(0, full - $0.size)) },
                    liveOn: live[version.version] ?? []
                )
            }
        }
    }
}
