import DepotHTTP
import DepotManifest
import DepotMigrations
import Foundation
import GRDB
import Logging

/// The record of what is published: every version of every logical path, which version is live,
/// and the manifest. It owns all of Depot's SQL.
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
            if try StoredManifest.fetch(db) == nil {
                try ManifestBuilder.store(serial: 0, files: [], now: Int64(Date().timeIntervalSince1970), in: db)
            }
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
        /// The live version after the publish.
        public let version: FileVersion
        /// True when the live version already had these bytes and this type: nothing changed.
        public let unchanged: Bool
        public let manifestSerial: Int64
    }

    /// Makes `publication` the live version of its path, in one transaction: the new version
    /// row, the live pointer, retention and the new manifest become visible together, or not
    /// at all. Publishes of one path are serialised by SQLite's single writer.
    ///
    /// - Throws: ``CatalogError`` with code ``CatalogError/Code/conflict`` when the path collides
    ///   with a live one (``PortablePath``): nothing is changed.
    public func publish(_ publication: Publication) async throws -> PublishResult {
        try await database.write { db in
            let path = try Self.pathForPublishing(publication.path, in: db)
            if let live = try FileVersion.live(path: path, in: db), live.sha256 == publication.blob.sha256,
                live.contentType == publication.contentType
            {
                let serial = try StoredManifest.fetch(db)?.serial ?? 0
                return PublishResult(version: live, unchanged: true, manifestSerial: serial)
            }
            let now = publication.now.secondsSince1970
            let lastVersion = try Int64.fetchOne(db, sql: "SELECT last_version FROM path_sequence WHERE path = ?", arguments: [path]) ?? 0
            let sameSecond =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM file_version WHERE path = ? AND published_at = ?)",
                    arguments: [path, now]
                ) ?? false
            let blob = publication.blob
            let version = FileVersion(
                path: path,
                version: lastVersion + 1,
                size: blob.size,
                sha256: blob.sha256,
                md5: blob.md5,
                contentType: publication.contentType,
                publishedAt: now,
                lastModifiedIsStrong: !sameSecond,
                gzipSize: blob.gzip?.size,
                gzipSHA256: blob.gzip?.sha256,
                retiredAt: nil
            )
            try version.insert(db)
            try db.execute(
                sql:
                    "INSERT INTO path_sequence (path, last_version) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET last_version = excluded.last_version",
                arguments: [path, version.version]
            )
            try db.execute(
                sql: "INSERT INTO live_file (path, version) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET version = excluded.version",
                arguments: [path, version.version]
            )
            try db.execute(
                sql: "INSERT OR REPLACE INTO live_path_key (path, key) VALUES (?, ?)",
                arguments: [path, PortablePath.collisionKey(path)]
            )
            try db.execute(
                sql: """
                    UPDATE file_version SET retired_at = ? WHERE path = ? AND retired_at IS NULL AND version NOT IN (
                        SELECT version FROM file_version WHERE path = ? ORDER BY version DESC LIMIT ?)
                    """,
                arguments: [now, path, path, max(1, publication.keepVersions)]
            )
            let serial = try ManifestBuilder.rebuild(now: now, in: db)
            return PublishResult(version: version, unchanged: false, manifestSerial: serial)
        }
    }

    /// Takes `path` out of the manifest and retires all its versions. Returns false when the path
    /// was not published.
    public func unpublish(path: String, now: HTTPDate) async throws -> Bool {
        try await database.write { db in
            guard let path = try Self.livePath(equalTo: path, in: db) else { return false }
            try db.execute(sql: "DELETE FROM live_file WHERE path = ?", arguments: [path])
            try db.execute(
                sql: "UPDATE file_version SET retired_at = ? WHERE path = ? AND retired_at IS NULL",
                arguments: [now.secondsSince1970, path]
            )
            try ManifestBuilder.rebuild(now: now.secondsSince1970, in: db)
            return true
        }
    }

    /// Reads everything the server serves, consistently.
    public func snapshot() async throws -> CatalogSnapshot {
        try await database.read { db in
            let live = try FileVersion.fetchAll(
                db,
                sql: "SELECT file_version.* FROM live_file JOIN file_version USING (path, version) ORDER BY path"
            )
            let all = try FileVersion.order(Column("published_at")).fetchAll(db)
            guard let manifest = try StoredManifest.fetch(db) else { throw CatalogError("The catalog has no manifest") }
            return CatalogSnapshot(
                // Rows of one path in two Unicode spellings (which catalogs written before paths
                // were normalized may hold) are one key to Swift: the newer wins, nothing traps.
                live: Dictionary(live.map { ($0.path, $0) }) { $0.publishedAt >= $1.publishedAt ? $0 : $1 },
                blobs: Dictionary(all.map { ($0.sha256, PublishedBlob(record: $0.blob, firstPublished: $0.lastModified)) }) { first, _ in first },
                deltas: try DeltaRecord.all(in: db),
                manifest: manifest
            )
        }
    }

    /// Removes versions retired before `cutoff`, and the patches to content no version has any
    /// more; returns how many versions went.
    public func removeRetired(before cutoff: HTTPDate) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM file_version WHERE retired_at IS NOT NULL AND retired_at < ?", arguments: [cutoff.secondsSince1970])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM file_delta WHERE to_sha256 NOT IN (SELECT sha256 FROM file_version)")
            return removed
        }
    }

    /// The SHA-256 of every blob a version or a patch refers to, retired versions included.
    public func referencedBlobs() async throws -> Set<String> {
        try await database.read { db in
            try String.fetchSet(
                db,
                sql: "SELECT sha256 FROM file_version UNION SELECT blob_sha256 FROM file_delta WHERE blob_sha256 IS NOT NULL"
            )
        }
    }

    /// The live version of `path` and up to `previousVersions` earlier versions of it (newest
    /// first, other content only) that have no patch, or record of none, to it yet. `nil` when
    /// the path is not published.
    public func deltaWork(path: String, previousVersions: Int) async throws -> DeltaWork? {
        try await database.read { db in
            guard let live = try FileVersion.live(path: path, in: db) else { return nil }
            let earlier = try FileVersion.fetchAll(
                db,
                sql: """
                    SELECT * FROM file_version WHERE path = ? AND version < ? AND sha256 != ?
                    ORDER BY version DESC LIMIT ?
                    """,
                arguments: [path, live.version, live.sha256, max(0, previousVersions)]
            )
            let done = try String.fetchSet(db, sql: "SELECT from_sha256 FROM file_delta WHERE to_sha256 = ?", arguments: [live.sha256])
            var seen = Set<String>()
            let sources = earlier.filter { !done.contains($0.sha256) && seen.insert($0.sha256).inserted }
            return DeltaWork(target: live, sources: sources)
        }
    }

    /// Every published path.
    public func livePaths() async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT path FROM live_file ORDER BY path")
        }
    }

    /// Records the patch from `from` to `to`, or (with `blob` nil) that none is worth keeping,
    /// and rebuilds the manifest so that clients see it; in one transaction.
    public func recordDelta(from: String, to: String, blob: BlobRecord?, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO file_delta (from_sha256, to_sha256, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(from_sha256, to_sha256) DO UPDATE SET blob_sha256 = excluded.blob_sha256, size = excluded.size
                    """,
                arguments: [from, to, blob?.sha256, blob?.size, now.secondsSince1970]
            )
            if blob != nil { try ManifestBuilder.rebuild(now: now.secondsSince1970, in: db) }
        }
    }
}

extension Catalog {
    /// The live path that `path` names as Swift compares strings (canonical equivalence), in
    /// the spelling the catalog stores; `nil` when there is none.
    static func livePath(equalTo path: String, in db: Database) throws -> String? {
        try livePaths(withKey: PortablePath.collisionKey(path), in: db).first { $0 == path }
    }

    /// The live paths whose collision key is `key`: one, or in catalogs written before paths were
    /// normalized, the Unicode spellings of one name.
    static func livePaths(withKey key: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT path FROM live_path_key WHERE key = ?", arguments: [key])
    }

    /// The path a publish of `path` goes to: `path`, or the stored spelling of the same live path.
    /// Throws a conflict when it collides with a live path (same key, other path), or when it or
    /// one of its folders is a live file's folder or a live file. Each check is an index lookup.
    static func pathForPublishing(_ path: String, in db: Database) throws -> String {
        let key = PortablePath.collisionKey(path)
        let sameKey = try livePaths(withKey: key, in: db)
        if let same = sameKey.first(where: { $0 == path }) { return same }
        if let other = sameKey.first {
            throw CatalogError("\(path) collides with the live \(other): they differ only in letter case or Unicode form", code: .conflict)
        }
        for folder in PortablePath.ancestors(key) {
            if let file = try livePaths(withKey: folder, in: db).first {
                throw CatalogError("\(path) needs the folder \(file), which is a live file", code: .conflict)
            }
        }
        // Keys inside the folder `key`: from `key/` up to, not including, `key0` ('0' follows '/').
        if let inside = try String.fetchOne(
            db,
            sql: "SELECT path FROM live_path_key WHERE key > ? AND key < ? LIMIT 1",
            arguments: [key + "/", key + "0"]
        ) {
            throw CatalogError("\(path) is a folder of the live \(inside), so it cannot be a file", code: .conflict)
        }
        return path
    }

    /// Gives every live path without a collision key its key: catalogs older than migration 0003.
    static func fillMissingPathKeys(in db: Database) throws {
        let missing = try String.fetchAll(db, sql: "SELECT path FROM live_file WHERE path NOT IN (SELECT path FROM live_path_key)")
        for path in missing {
            try db.execute(sql: "INSERT INTO live_path_key (path, key) VALUES (?, ?)", arguments: [path, PortablePath.collisionKey(path)])
        }
    }
}

extension FileVersion {
    static func live(path: String, in db: Database) throws -> FileVersion? {
        try FileVersion.fetchOne(
            db,
            sql: "SELECT file_version.* FROM live_file JOIN file_version USING (path, version) WHERE path = ?",
            arguments: [path]
        )
    }
}
