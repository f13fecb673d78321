import DepotHTTP
import DepotManifest
import Foundation
import GRDB

extension ReleaseStore {
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
            guard let target = try ReleaseTables.release(reference, in: db) else {
                if let number = Int64(reference), number >= 1, number <= (try Int64.fetchOne(db, sql: "SELECT MAX(number) FROM release") ?? 0) {
                    throw CatalogError("The release \(number) is no longer kept", code: .gone)
                }
                throw CatalogError("There is no release \(reference)", code: .notFound)
            }
            try RolloutStore.refuseDuringRollout(of: try ReleaseWriter.channel(channel, in: db))
            return try ReleaseTables.move(channel, to: target, kind: "promote", restores: nil, now: now.secondsSince1970, in: db)
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
            if let rollout = try RolloutStore.liveRollout(of: channel, in: db) {
                return try RolloutStore.rollBack(rollout, reason: "rolled back with the channel", now: now.secondsSince1970, in: db)
            }
            let (target, restores) = try Self.rollbackTarget(of: channel, in: db)
            return try ReleaseTables.move(channel, to: target, kind: "rollback", restores: restores, now: now.secondsSince1970, in: db)
        }
    }

    /// The release a rollback of `channel` would point it to (a rollout under way is rolled back
    /// instead, to its base); `nil` when there is none. What the dashboard's confirm names.
    public func rollbackTarget(of channel: String) async throws -> ReleaseSummary? {
        try await database.read { db in
            if let rollout = try RolloutStore.liveRollout(of: channel, in: db) { return try ReleaseSummary.fetch(id: rollout.base, in: db) }
            return try? Self.rollbackTarget(of: channel, in: db).target
        }
    }

    /// The one rule for where a rollback goes: the newest of ``ReleaseTables/rollbackHistory(of:in:)``, with
    /// the serial of the event restored.
    private static func rollbackTarget(of channel: String, in db: Database) throws -> (target: ReleaseSummary, restores: Int64) {
        let moves = try ReleaseTables.rollbackHistory(of: channel, in: db)
        guard let previous = try moves.next()?.copy() else {
            throw CatalogError("The channel \(channel) has no earlier release to roll back to", code: .conflict)
        }
        guard let target = try ReleaseSummary.fetch(id: previous["release"], in: db) else {
            throw CatalogError("The earlier release of \(channel) is no longer kept", code: .gone)
        }
        return (target, previous["serial"])
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
        try await database.read { try ReleaseTables.release(reference, in: $0) }
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

    /// The release document `/releases/{id}`.
    public func releaseDocument(id: String) async throws -> StoredDocument? {
        try await database.read { try ReleaseTables.storedDocument(sql: ReleaseTables.releaseQuery, key: id, in: $0) }
    }

    /// The page document `/pages/{sha256}`.
    public func pageDocument(sha256: String) async throws -> StoredDocument? {
        try await database.read { try ReleaseTables.storedDocument(sql: ReleaseTables.pageQuery, key: sha256, in: $0) }
    }

}
