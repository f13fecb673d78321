import DepotHTTP
import DepotManifest
import GRDB

extension ReleaseStore {
    /// Commits a release in one transaction: new versions, the channel's files, the pages the
    /// change touched, the release document and the channel pointer become visible together or
    /// not at all. The work is O(k) index lookups and k page encodes for k changed paths.
    ///
    /// - Throws: ``CatalogError`` with code `.invalid` for a bad channel name or a path listed
    ///   twice, `.conflict` for paths that collide (``PortablePath``), `.notFound` for a
    ///   deletion of a path the channel does not hold, `.moved` when the channel is not on
    ///   ``ReleaseCommit/base`` or has a rollout under way. Nothing is changed.
    public func commit(_ commit: ReleaseCommit) async throws -> ReleaseOutcome {
        if let problem = ChannelName.problem(commit.channel) { throw CatalogError("\(commit.channel): \(problem)", code: .invalid) }
        var listed = Set<String>()
        for path in commit.files.map(\.path) + commit.deletions where !listed.insert(path).inserted {
            throw CatalogError("\(path) is listed twice", code: .invalid)
        }
        return try await database.write { db in try Self.commit(commit, in: db) }
    }

    /// ``commit(_:)`` in its transaction.
    private static func commit(_ commit: ReleaseCommit, in db: Database) throws -> ReleaseOutcome {
        let channel = commit.channel
        let current = try ReleaseWriter.channel(channel, in: db)
        try RolloutStore.refuseDuringRollout(of: current)
        if let base = commit.base, current?.release.id != base {
            let on = current.map { "release \($0.release.number)" } ?? "no release"
            throw CatalogError("\(channel) is on \(on), not on the release \(base.prefix(12))… the commit is based on", code: .moved)
        }
        var tally = CommitTally(
            channel: channel,
            files: current?.release.files ?? 0,
            bytes: current?.release.bytes ?? 0,
            now: commit.now.secondsSince1970
        )
        // A channel that holds no file: the listed paths can only collide with one another,
        // which is checked in memory by the rule clients use (``PortablePath/collisions(in:)``),
        // and none is live. A first publish then runs a third of the statements per file.
        let holdsFiles =
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM channel_file WHERE channel = ?)"), arguments: [channel])
            ?? true
        if !holdsFiles, let (path, other) = PortablePath.collisions(in: commit.files.map(\.path)).first {
            throw VersionTables.collision(of: path, with: other)
        }
        try tally.delete(try deletions(of: commit, in: db), in: db)
        try tally.publish(commit.files, holdsFiles: holdsFiles, keepVersions: commit.keepVersions, in: db)
        guard !tally.touched.isEmpty else {
            return ReleaseOutcome(
                release: current?.release,
                created: false,
                files: tally.versions,
                unchanged: tally.unchanged,
                removed: [],
                channelSerial: current?.serial ?? 0
            )
        }
        let (release, serial) = try ReleaseWriter.release(
            channel: channel,
            base: current?.release,
            touchedBuckets: tally.touched,
            files: tally.files,
            bytes: tally.bytes,
            critical: commit.critical,
            minimumClientVersion: commit.minimumClientVersion,
            message: commit.message,
            now: tally.now,
            in: db
        )
        return ReleaseOutcome(
            release: release,
            created: true,
            files: tally.versions,
            unchanged: tally.unchanged,
            removed: tally.removed,
            channelSerial: serial
        )
    }
}

extension ReleaseStore {
    /// The paths `commit` takes out: those it lists, and with ``ReleaseCommit/replace`` every
    /// other path of the channel.
    private static func deletions(of commit: ReleaseCommit, in db: Database) throws -> [String] {
        guard commit.replace else { return commit.deletions }
        let kept = Set(commit.files.map(\.path))
        let held = try String.fetchAll(db, sql: "SELECT path FROM channel_file WHERE channel = ?", arguments: [commit.channel])
        return commit.deletions + held.filter { !kept.contains($0) }
    }
}

/// What a commit changes in its channel, path by path: the counts of the release it makes, the
/// page buckets it touches, the versions it makes and the paths it takes out.
private struct CommitTally {
    let channel: String
    var files: Int64
    var bytes: Int64
    let now: Int64
    var touched = Set<UInt32>()
    var removed: [String] = []
    var versions: [FileVersion] = []
    var unchanged = 0

    /// Takes `paths` out of the channel, each as stored; their old versions are retired.
    mutating func delete(_ paths: [String], in db: Database) throws {
        for path in paths {
            guard let stored = try VersionTables.livePath(equalTo: path, channel: channel, in: db),
                let live = try FileVersion.live(path: stored, channel: channel, in: db)
            else { throw CatalogError("\(path) is not in the release of \(channel)", code: .notFound) }
            try db.execute(sql: "DELETE FROM channel_file WHERE channel = ? AND path = ?", arguments: [channel, stored])
            try VersionTables.retireOldVersions(of: stored, keeping: 0, now: now, in: db)
            touched.insert(ReleasePaging.bucket(ofPath: stored))
            files -= 1
            bytes -= live.size
            removed.append(stored)
        }
    }

    /// Publishes `published` in the channel: a new version of each whose content or type
    /// changed, beyond `keepVersions` older ones retired.
    mutating func publish(_ published: [ReleaseStore.ReleaseFile], holdsFiles: Bool, keepVersions: Int, in db: Database) throws {
        for file in published {
            let path = holdsFiles ? try VersionTables.pathForPublishing(file.path, channel: channel, in: db) : file.path
            let live = holdsFiles ? try FileVersion.live(path: path, channel: channel, in: db) : nil
            if let live, live.sha256 == file.blob.sha256, live.contentType == file.contentType {
                unchanged += 1
                continue
            }
            let version = try VersionTables.newVersion(of: path, blob: file.blob, contentType: file.contentType, now: now, in: db)
            try ReleaseWriter.setRow(channel: channel, path: path, version: version.version, in: db)
            // The first version of a path has no older one to retire.
            if version.version > 1 {
                try VersionTables.retireOldVersions(of: path, keeping: max(1, keepVersions), now: now, in: db)
            }
            touched.insert(ReleasePaging.bucket(ofPath: path))
            files += live == nil ? 1 : 0
            bytes += version.size - (live?.size ?? 0)
            versions.append(version)
        }
    }
}
