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

extension ReleaseStore {
    /// Every recorded version of `path`, newest first, each with the patches kept to it: two
    /// indexed reads for the path, whatever the size of the catalog.
    public func fileHistory(path: String) async throws -> [FileHistoryEntry] {
        try await database.read { db in
            let versions = try FileVersion.fetchAll(db, sql: "SELECT * FROM file_version WHERE path = ? ORDER BY version DESC", arguments: [path])
            var live: [Int64: [String]] = [:]
            let rollouts = Dictionary(uniqueKeysWithValues: try RolloutStore.liveSteps(in: db).map { ($0["id"] as Int64, $0["channel"] as String) })
            var holders = try Row.fetchAll(db, sql: "SELECT version, channel AS place FROM channel_file WHERE path = ?", arguments: [path])
                .map { (version: $0["version"] as Int64, place: $0["place"] as String) }
            for row in try Row.fetchAll(db, sql: "SELECT rollout, version FROM rollout_file WHERE path = ?", arguments: [path]) {
                guard let channel = rollouts[row["rollout"]] else { continue }
                holders.append((row["version"], channel + " (rollout)"))
            }
            for holder in holders.sorted(by: { $0.place < $1.place }) { live[holder.version, default: []].append(holder.place) }
            var patches: [String: [(from: String, fromVersion: Int64, size: Int64)]] = [:]
            for (target, records) in try DeltaRecord.all(to: Array(Set(versions.map(\.sha256))), in: db) {
                for record in records {
                    for source in versions where source.sha256 == record.fromSHA256 {
                        patches[target, default: []].append((record.fromSHA256, source.version, record.size))
                    }
                }
                patches[target]?.sort { $0.fromVersion > $1.fromVersion }
            }
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
