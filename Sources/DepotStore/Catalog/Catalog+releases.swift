import DepotHTTP
import DepotManifest
import Foundation
import GRDB

extension Catalog {
    /// One file of a release: the content to publish at `path`.
    public struct ReleaseFile: Sendable {
        public var path: String
        public var blob: BlobRecord
        public var contentType: String

        public init(path: String, blob: BlobRecord, contentType: String) {
            self.path = path
            self.blob = blob
            self.contentType = contentType
        }
    }

    /// A release to commit: the channel's release with `files` published and `deletions` taken
    /// out, or with `replace`, exactly `files`.
    public struct ReleaseCommit: Sendable {
        public var channel: String
        public var files: [ReleaseFile]
        public var deletions: [String]
        /// The release holds exactly `files`: every other path of the channel is deleted.
        public var replace: Bool
        public var now: HTTPDate
        /// How many versions of each path stay available beyond what channels point to.
        public var keepVersions: Int
        /// The id of the release the channel must be on; `nil` for any.
        public var base: String?
        /// Whether the new release is critical, and the lowest app version that can use it.
        public var critical = false
        public var minimumClientVersion: String?

        public init(
            channel: String,
            files: [ReleaseFile] = [],
            deletions: [String] = [],
            replace: Bool = false,
            now: HTTPDate,
            keepVersions: Int,
            base: String? = nil
        ) {
            self.base = base
            self.channel = channel
            self.files = files
            self.deletions = deletions
            self.replace = replace
            self.now = now
            self.keepVersions = keepVersions
        }
    }

    /// What a commit did.
    public struct ReleaseOutcome: Sendable {
        /// The channel's release after the commit; `nil` only for a channel that has none and
        /// a commit that changed nothing.
        public let release: ReleaseSummary?
        /// False when the commit changed nothing, so no release was made.
        public let created: Bool
        /// The versions the commit made, in the order of ``ReleaseCommit/files``: O(change), so
        /// a commit that lists 100,000 files of which one changed answers with one.
        public let files: [FileVersion]
        /// How many files of ``ReleaseCommit/files`` the channel held already, with that content.
        public let unchanged: Int
        /// The paths taken out, as stored.
        public let removed: [String]
        /// The channel's serial after the commit.
        public let channelSerial: Int64
    }

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
        return try await database.write { db in
            let channel = commit.channel
            let current = try ReleaseWriter.channel(channel, in: db)
            try Self.refuseDuringRollout(of: current)
            if let base = commit.base, current?.release.id != base {
                let on = current.map { "release \($0.release.number)" } ?? "no release"
                throw CatalogError("\(channel) is on \(on), not on the release \(base.prefix(12))… the commit is based on", code: .moved)
            }
            let now = commit.now.secondsSince1970
            var files = current?.release.files ?? 0
            var bytes = current?.release.bytes ?? 0
            var touched = Set<UInt32>()
            var deletions = commit.deletions
            if commit.replace {
                let kept = Set(commit.files.map(\.path))
                deletions += try String.fetchAll(db, sql: "SELECT path FROM channel_file WHERE channel = ?", arguments: [channel])
                    .filter { !kept.contains($0) }
            }
            // A channel that holds no file: the listed paths can only collide with one another,
            // which is checked in memory by the rule clients use (``PortablePath/collisions(in:)``),
            // and none is live. A first publish then runs a third of the statements per file.
            let holdsFiles =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM channel_file WHERE channel = ?)"),
                    arguments: [channel]
                ) ?? true
            if !holdsFiles, let (path, other) = PortablePath.collisions(in: commit.files.map(\.path)).first {
                throw Self.collision(of: path, with: other)
            }
            var removed: [String] = []
            for path in deletions {
                guard let stored = try Self.livePath(equalTo: path, channel: channel, in: db),
                    let live = try FileVersion.live(path: stored, channel: channel, in: db)
                else { throw CatalogError("\(path) is not in the release of \(channel)", code: .notFound) }
                try db.execute(sql: "DELETE FROM channel_file WHERE channel = ? AND path = ?", arguments: [channel, stored])
                try Self.retireOldVersions(of: stored, keeping: 0, now: now, in: db)
                touched.insert(ReleasePaging.bucket(ofPath: stored))
                files -= 1
                bytes -= live.size
                removed.append(stored)
            }
            var versions: [FileVersion] = []
            var unchanged = 0
            for file in commit.files {
                let path = holdsFiles ? try Self.pathForPublishing(file.path, channel: channel, in: db) : file.path
                let live = holdsFiles ? try FileVersion.live(path: path, channel: channel, in: db) : nil
                if let live, live.sha256 == file.blob.sha256, live.contentType == file.contentType {
                    unchanged += 1
                    continue
                }
                let version = try Self.newVersion(of: path, blob: file.blob, contentType: file.contentType, now: now, in: db)
                try ReleaseWriter.setRow(channel: channel, path: path, version: version.version, in: db)
                // The first version of a path has no older one to retire.
                if version.version > 1 {
                    try Self.retireOldVersions(of: path, keeping: max(1, commit.keepVersions), now: now, in: db)
                }
                touched.insert(ReleasePaging.bucket(ofPath: path))
                files += live == nil ? 1 : 0
                bytes += version.size - (live?.size ?? 0)
                versions.append(version)
            }
            guard !touched.isEmpty else {
                return ReleaseOutcome(
                    release: current?.release,
                    created: false,
                    files: versions,
                    unchanged: unchanged,
                    removed: [],
                    channelSerial: current?.serial ?? 0
                )
            }
            let (release, serial) = try ReleaseWriter.release(
                channel: channel,
                base: current?.release,
                touchedBuckets: touched,
                files: files,
                bytes: bytes,
                critical: commit.critical,
                minimumClientVersion: commit.minimumClientVersion,
                now: now,
                in: db
            )
            return ReleaseOutcome(
                release: release,
                created: true,
                files: versions,
                unchanged: unchanged,
                removed: removed,
                channelSerial: serial
            )
        }
    }

    /// What a promote or a rollback did.
    public struct ChannelMove: Sendable {
        public let channel: String
        /// The release the channel pointed to before, if any.
        public let from: ReleaseSummary?
        public let to: ReleaseSummary
        /// The channel's serial after the move (unchanged when it already pointed there).
        public let serial: Int64
        public let diff: ReleaseDiff
    }

    /// Points `channel` (created if new) at the release `reference` names: its id, or its
    /// number. Only what differs between the two releases is written.
    ///
    /// - Throws: ``CatalogError`` `.invalid` for a bad channel name, `.notFound` for an unknown
    ///   release, `.gone` when retention removed the release or a version it needs.
    public func promote(_ reference: String, to channel: String, now: HTTPDate) async throws -> ChannelMove {
        if let problem = ChannelName.problem(channel) { throw CatalogError("\(channel): \(problem)", code: .invalid) }
        return try await database.write { db in
            guard let target = try Self.release(reference, in: db) else {
                if let number = Int64(reference), number >= 1, number <= (try Int64.fetchOne(db, sql: "SELECT MAX(number) FROM release") ?? 0) {
                    throw CatalogError("The release \(number) is no longer kept", code: .gone)
                }
                throw CatalogError("There is no release \(reference)", code: .notFound)
            }
            try Self.refuseDuringRollout(of: try ReleaseWriter.channel(channel, in: db))
            return try Self.move(channel, to: target, kind: "promote", restores: nil, now: now.secondsSince1970, in: db)
        }
    }

    /// Points `channel` back at the release it pointed to before its last move. A second
    /// rollback goes one further back; a publish after a rollback starts from the restored
    /// release. During a rollout, rolls the rollout back: every install goes to the release the
    /// channel points to.
    ///
    /// - Throws: ``CatalogError`` `.notFound` for a channel without a release, `.conflict` when
    ///   there is nothing earlier, `.gone` when retention removed the earlier release.
    public func rollback(_ channel: String, now: HTTPDate) async throws -> ChannelMove {
        try await database.write { db in
            if let rollout = try Self.liveRollout(of: channel, in: db) {
                return try Self.rollBack(rollout, reason: "rolled back with the channel", now: now.secondsSince1970, in: db)
            }
            // Rollout events move no pointer: the moves are publishes, promotes and rollbacks.
            let events = "SELECT serial, release, kind, restores FROM channel_event WHERE channel = ? AND kind != 'rollout'"
            guard let latest = try Row.fetchOne(db, sql: events + " ORDER BY serial DESC LIMIT 1", arguments: [channel]) else {
                throw CatalogError("The channel \(channel) has no release", code: .notFound)
            }
            // A rollback stands for the event it restored: roll back from there.
            let from: Int64 = latest["kind"] == "rollback" ? latest["restores"] : latest["serial"]
            guard let previous = try Row.fetchOne(db, sql: events + " AND serial < ? ORDER BY serial DESC LIMIT 1", arguments: [channel, from]) else {
                throw CatalogError("The channel \(channel) has no earlier release to roll back to", code: .conflict)
            }
            guard let target = try ReleaseSummary.fetch(id: previous["release"], in: db) else {
                throw CatalogError("The earlier release of \(channel) is no longer kept", code: .gone)
            }
            return try Self.move(channel, to: target, kind: "rollback", restores: previous["serial"], now: now.secondsSince1970, in: db)
        }
    }

    /// For a channel whose release needs a minimum app version: the channel's earlier releases
    /// its document lists for older apps (``ChannelDocument/fallbacks``), newest first, each
    /// needing a lower version than the one before, at most 3; none otherwise. Releases
    /// retention removed are skipped.
    public func fallbacks(of channel: ChannelState) async throws -> [ReleaseSummary] {
        guard channel.release.minimumClientVersion != nil else { return [] }
        return try await database.read { try ReleaseWriter.fallbacks(of: channel.name, for: channel.release, in: $0) }
    }

    /// Every channel, by name.
    public func channels() async throws -> [ChannelState] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM channel ORDER BY name").compactMap { try ReleaseWriter.channel($0, in: db) }
        }
    }

    /// The newest `limit` releases, newest first.
    public func releases(limit: Int = 100) async throws -> [ReleaseSummary] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(ReleaseSummary.columns) FROM release ORDER BY number DESC LIMIT ?", arguments: [limit])
                .map(ReleaseSummary.init(row:))
        }
    }

    /// The release `reference` names (id or number).
    public func release(_ reference: String) async throws -> ReleaseSummary? {
        try await database.read { try Self.release(reference, in: $0) }
    }

    /// How release `to` differs from release `from`.
    public func diff(from: ReleaseSummary, to: ReleaseSummary) async throws -> ReleaseDiff {
        try await database.read { try ReleaseWriter.diff(from: from, to: to, in: $0) }
    }

    /// A stored document and when it was made.
    public struct StoredDocument: Sendable {
        public let bytes: [UInt8]
        public let createdAt: Int64
    }

    private static let releaseQuery = "SELECT document, created_at FROM release WHERE id = ?"
    private static let pageQuery = "SELECT document, created_at FROM release_page WHERE sha256 = ?"

    /// The release document `/releases/{id}`.
    public func releaseDocument(id: String) async throws -> StoredDocument? {
        try await database.read { try Self.storedDocument(sql: Self.releaseQuery, key: id, in: $0) }
    }

    /// The page document `/pages/{sha256}`.
    public func pageDocument(sha256: String) async throws -> StoredDocument? {
        try await database.read { try Self.storedDocument(sql: Self.pageQuery, key: sha256, in: $0) }
    }

    private static func storedDocument(sql: String, key: String, in db: Database) throws -> StoredDocument? {
        try Row.fetchOne(db, sql: sql, arguments: [key]).map { row in
            let bytes: Data = row["document"]
            return StoredDocument(bytes: Array(bytes), createdAt: row["created_at"])
        }
    }
}

extension Catalog {
    static func release(_ reference: String, in db: Database) throws -> ReleaseSummary? {
        if reference.utf8.count == 64 { return try ReleaseSummary.fetch(id: reference.lowercased(), in: db) }
        return try Int64(reference).flatMap { try ReleaseSummary.fetch(number: $0, in: db) }
    }

    static func move(
        _ channel: String,
        to target: ReleaseSummary,
        kind: String,
        restores: Int64?,
        detail: String? = nil,
        now: Int64,
        in db: Database
    ) throws -> ChannelMove {
        let current = try ReleaseWriter.channel(channel, in: db)
        if let current, current.release.id == target.id {
            return ChannelMove(channel: channel, from: current.release, to: target, serial: current.serial, diff: ReleaseDiff())
        }
        let diff = try ReleaseWriter.diff(from: current?.release, to: target, in: db)
        try ReleaseWriter.apply(diff, to: channel, in: db)
        // A release retention retired is kept again while a channel points to it, and for the
        // grace period once none does.
        try db.execute(sql: "UPDATE release SET retired_at = NULL WHERE id = ?", arguments: [target.id])
        let serial = try ReleaseWriter.point(channel, to: target, kind: kind, restores: restores, detail: detail, now: now, in: db)
        return ChannelMove(channel: channel, from: current?.release, to: target, serial: serial, diff: diff)
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
