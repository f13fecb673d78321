import DepotHTTP
import DepotManifest
import Foundation
import GRDB

extension Catalog {
    /// What a promote or a rollback did.
    public struct ChannelMove: Sendable {
        public let channel: String
        /// The release the channel pointed to before, if any.
        public let from: ReleaseSummary?
        public let to: ReleaseSummary
        /// The channel's serial after the move (unchanged when it already pointed there).
        public let serial: Int64
        public let diff: ReleaseDiff
        /// Whether the move rolled a live rollout back (`from` is its release; the channel
        /// stays on `to`, the rollout's base).
        public var rolloutRolledBack = false
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
            let (target, restores) = try Self.rollbackTarget(of: channel, in: db)
            return try Self.move(channel, to: target, kind: "rollback", restores: restores, now: now.secondsSince1970, in: db)
        }
    }

    /// The release a rollback of `channel` would point it to (a rollout under way is rolled back
    /// instead, to its base); `nil` when there is none. What the dashboard's confirm names.
    public func rollbackTarget(of channel: String) async throws -> ReleaseSummary? {
        try await database.read { db in
            if let rollout = try Self.liveRollout(of: channel, in: db) { return try ReleaseSummary.fetch(id: rollout.base, in: db) }
            return try? Self.rollbackTarget(of: channel, in: db).target
        }
    }

    /// The one rule for where a rollback goes: the newest of ``rollbackHistory(of:in:)``, with
    /// the serial of the event restored.
    private static func rollbackTarget(of channel: String, in db: Database) throws -> (target: ReleaseSummary, restores: Int64) {
        let moves = try rollbackHistory(of: channel, in: db)
        guard let previous = try moves.next()?.copy() else {
            throw CatalogError("The channel \(channel) has no earlier release to roll back to", code: .conflict)
        }
        guard let target = try ReleaseSummary.fetch(id: previous["release"], in: db) else {
            throw CatalogError("The earlier release of \(channel) is no longer kept", code: .gone)
        }
        return (target, previous["serial"])
    }

    /// The moves successive rollbacks of `channel` go back to, newest first (`serial` and
    /// `release` of each): the moves before its latest one, a rollback standing for the event it
    /// restored. Rollbacks use the first; retention keeps the releases of the first ones.
    ///
    /// - Throws: ``CatalogError`` `.notFound` for a channel that never moved.
    static func rollbackHistory(of channel: String, in db: Database) throws -> RowCursor {
        // Rollout events move no pointer: the moves are publishes, promotes and rollbacks.
        let events = "SELECT serial, release, kind, restores FROM channel_event WHERE channel = ? AND kind != 'rollout'"
        guard let latest = try Row.fetchOne(db, sql: events + " ORDER BY serial DESC LIMIT 1", arguments: [channel]) else {
            throw CatalogError("The channel \(channel) has no release", code: .notFound)
        }
        let from: Int64 = latest["kind"] == "rollback" ? latest["restores"] : latest["serial"]
        return try Row.fetchCursor(db, sql: events + " AND serial < ? ORDER BY serial DESC", arguments: [channel, from])
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
