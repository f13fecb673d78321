import DepotHTTP
import DepotManifest
import DepotMigrations
import Foundation
import GRDB
import Logging

/// The record of what is published: every version of every logical path, which version is live,
/// and the releases and channels. It owns all of Depot's SQL.
///
/// Backed by SQLite through GRDB: a `DatabasePool` in WAL mode, so readers never wait for a
/// publish. The schema comes only from the numbered files of `migrations/`, applied in order
/// when the catalog opens; a catalog written by a newer Depot is refused.
public final class Catalog: Sendable {
    let database: DatabasePool

    /// Opens (creating if needed) the catalog at `path` and brings its schema up to date.
    public init(path: String, logger: Logger? = nil) throws {
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            database = try DatabasePool(path: path, configuration: configuration)
            // FULL, on the one connection that commits: in WAL mode, NORMAL (GRDB's choice for a
            // pool) may lose the last commits on a power cut, and with them a publish the server
            // has already acknowledged. FULL syncs the WAL at every commit.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw CatalogError("Cannot open the catalog \(path): \(error)")
        }
        var migrator = DatabaseMigrator()
        for migration in CatalogMigrations.all {
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: migration.sql)
            }
        }
        let superseded = try database.read { try migrator.hasBeenSuperseded($0) }
        guard !superseded else {
            let applied = try database.read { try migrator.appliedIdentifiers($0) }
            let unknown = applied.subtracting(migrator.migrations).sorted()
            throw CatalogError(
                "The catalog \(path) has a newer schema than this depot knows (migrations \(unknown.joined(separator: ", "))): "
                    + "run a newer depot, or restore a backup"
            )
        }
        let pending = try database.read { try migrator.appliedIdentifiers($0) }.count < migrator.migrations.count
        try migrator.migrate(database)
        if pending { logger?.info("Catalog schema migrated", metadata: ["migrations": "\(migrator.migrations.count)"]) }
        try database.write { db in
            try Self.fillMissingPathKeys(in: db)
            try ReleaseWriter.releaseUnreleasedChannels(now: Int64(Date().timeIntervalSince1970), in: db)
        }
    }

    /// The content of one publish.
    public struct Publication: Sendable {
        public var path: String
        public var blob: BlobRecord
        public var contentType: String
        public var now: HTTPDate
        /// How many versions of the path stay available; older ones are retired.
        public var keepVersions: Int

        public init(path: String, blob: BlobRecord, contentType: String, now: HTTPDate, keepVersions: Int) {
            self.path = path
            self.blob = blob
            self.contentType = contentType
            self.now = now
            self.keepVersions = keepVersions
        }
    }

    /// What a publish did.
    public struct PublishResult: Sendable {
        /// The version the publish made; for an unchanged publish, the live version as read
        /// right after.
        public let version: FileVersion
        /// True when the live version already had these bytes and this type: nothing changed.
        public let unchanged: Bool
        /// The serial of the default channel after the publish.
        public let channelSerial: Int64
        /// The number of the release the publish made; `nil` when unchanged.
        public var releaseNumber: Int64? = nil
    }

    /// Makes `publication` the live version of its path on the default channel: a release of the
    /// channel's release plus this one file (``commit(_:)``).
    ///
    /// - Throws: ``CatalogError`` with code ``CatalogError/Code/conflict`` when the path collides
    ///   with a live one (``PortablePath``): nothing is changed.
    public func publish(_ publication: Publication) async throws -> PublishResult {
        let outcome = try await commit(
            ReleaseCommit(
                channel: ChannelName.default,
                files: [.init(path: publication.path, blob: publication.blob, contentType: publication.contentType)],
                now: publication.now,
                keepVersions: publication.keepVersions
            )
        )
        var version = outcome.files.first
        if version == nil { version = try await liveVersion(of: publication.path) }
        guard let version else {
            throw CatalogError("\(publication.path) is not in the release it was just published to")
        }
        return PublishResult(
            version: version,
            unchanged: !outcome.created,
            channelSerial: outcome.channelSerial,
            releaseNumber: outcome.created ? outcome.release?.number : nil
        )
    }

    /// Takes `path` out of the default channel and retires its versions: a release without it.
    /// Returns the path as stored (which may differ from `path` in Unicode spelling), or `nil`
    /// when the path was not published.
    public func unpublish(path: String, now: HTTPDate) async throws -> String? {
        do {
            return try await commit(ReleaseCommit(channel: ChannelName.default, deletions: [path], now: now, keepVersions: 1)).removed.first
        } catch let error as CatalogError where error.code == .notFound {
            return nil
        }
    }

    /// Removes versions retired before `cutoff`, and the patches and block indexes of content
    /// that no version, no recorded upload and no writer has any more; returns how many versions
    /// went.
    ///
    /// A publish makes the block index and patches of its new content before its commit adds
    /// the version, holding the content in `store` meanwhile (``BlobStore/held``). The holds are
    /// read inside this transaction: a writer whose rows are already in the catalog took its
    /// hold before writing them, so its rows are spared until it commits or gives up.
    public func removeRetired(before cutoff: HTTPDate, sparingHeldBy store: BlobStore) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: """
                    DELETE FROM file_version WHERE retired_at IS NOT NULL AND retired_at < ? AND NOT EXISTS (
                        SELECT 1 FROM channel_file WHERE channel_file.path = file_version.path AND channel_file.version = file_version.version
                    ) AND NOT EXISTS (
                        SELECT 1 FROM rollout_file WHERE rollout_file.path = file_version.path AND rollout_file.version = file_version.version)
                    """,
                arguments: [cutoff.secondsSince1970]
            )
            let removed = db.changesCount
            let unowned = "NOT IN (SELECT sha256 FROM file_version UNION SELECT sha256 FROM uploaded_blob UNION SELECT sha256 FROM public_file)"
            let orphans = try String.fetchSet(
                db,
                sql: """
                    SELECT to_sha256 FROM file_delta WHERE to_sha256 \(unowned) UNION SELECT sha256 FROM block_index WHERE sha256 \(unowned)
                    UNION SELECT sha256 FROM content_variant WHERE sha256 \(unowned)
                    """
            ).subtracting(store.held)
            for sha256 in orphans {
                try db.execute(sql: "DELETE FROM file_delta WHERE to_sha256 = ?", arguments: [sha256])
                try db.execute(sql: "DELETE FROM block_index WHERE sha256 = ?", arguments: [sha256])
                try db.execute(sql: "DELETE FROM content_variant WHERE sha256 = ?", arguments: [sha256])
            }
            return removed
        }
    }

    /// The SHA-256 of every blob a version, a patch, a block index, a variant, a page's pack or a recorded upload refers to, retired
    /// versions included.
    public func referencedBlobs() async throws -> Set<String> {
        try await database.read(Self.referencedBlobs(in:))
    }

    /// ``referencedBlobs()`` in `db`.
    static func referencedBlobs(in db: Database) throws -> Set<String> {
        try String.fetchSet(
            db,
            sql: """
                SELECT sha256 FROM file_version UNION SELECT blob_sha256 FROM file_delta WHERE blob_sha256 IS NOT NULL
                UNION SELECT sha256 FROM uploaded_blob UNION SELECT index_sha256 FROM block_index
                UNION SELECT packed_sha256 FROM block_index
                UNION SELECT variant_sha256 FROM content_variant WHERE variant_sha256 IS NOT NULL
                UNION SELECT blob_sha256 FROM page_pack WHERE blob_sha256 IS NOT NULL
                """
        )
    }

    /// The earlier versions of `path` at each of `distances` back from `target` (1 is the
    /// content before it; each content counted once, newest first) that have no patch, or
    /// record of none, to `target`: what a publish makes patches to `target` from.
    public func patchSources(path: String, target: String, distances: [Int]) async throws -> [FileVersion] {
        try await database.read { db in
            let earlier = try FileVersion.fetchAll(
                db,
                sql: "SELECT * FROM file_version WHERE path = ? AND sha256 != ? ORDER BY version DESC",
                arguments: [path, target]
            )
            let done = try String.fetchSet(db, sql: "SELECT from_sha256 FROM file_delta WHERE to_sha256 = ?", arguments: [target])
            var seen = Set<String>()
            let distinct = earlier.filter { seen.insert($0.sha256).inserted }
            return Set(distances).sorted().compactMap { distinct.indices.contains($0 - 1) ? distinct[$0 - 1] : nil }
                .filter { !done.contains($0.sha256) }
        }
    }

    /// The version of a path with the content `from` when a later version of that path has the
    /// content `to` and no patch, or record of none, from `from` to `to` exists: what a patch
    /// made on request is made from. Nil for any other pair, which no request can have made.
    public func onRequestPatchSource(from: String, to: String) async throws -> FileVersion? {
        guard from != to else { return nil }
        return try await database.read { db in
            try FileVersion.fetchOne(
                db,
                sql: """
                    SELECT source.* FROM file_version AS source JOIN file_version AS target ON target.path = source.path
                    WHERE source.sha256 = ? AND target.sha256 = ? AND source.version < target.version
                    AND NOT EXISTS (SELECT 1 FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ?)
                    LIMIT 1
                    """,
                arguments: [from, to, from, to]
            )
        }
    }

    /// Records the patch from `from` to `to`, or (with `blob` nil) that none is worth keeping.
    /// Releases committed after this list it.
    public func recordDelta(from: String, to: String, blob: BlobRecord?, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO file_delta (from_sha256, to_sha256, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(from_sha256, to_sha256) DO UPDATE SET blob_sha256 = excluded.blob_sha256, size = excluded.size
                    """,
                arguments: [from, to, blob?.sha256, blob?.size, now.secondsSince1970]
            )
        }
    }
}

extension FileVersion {
    static func live(path: String, channel: String, in db: Database) throws -> FileVersion? {
        try FileVersion.fetchOne(
            db.cachedStatement(sql: "SELECT file_version.* FROM channel_file JOIN file_version USING (path, version) WHERE channel = ? AND path = ?"),
            arguments: [channel, path]
        )
    }
}
