import DepotHTTP
import DepotManifest
import DepotMigrations
import Foundation
import GRDB
import Logging

/// The database of what is published: the pool, the schema and its migrations. Its tables belong
/// to the stores made from it, each owning its tables' SQL: ``ReleaseStore``, ``RolloutStore``,
/// ``ReportLedger``, ``AuditLog``, ``BlobIndex``; ``Maintenance`` runs their upkeep.
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
            try VersionTables.fillMissingPathKeys(in: db)
            try ReleaseWriter.releaseUnreleasedChannels(now: Int64(Date().timeIntervalSince1970), in: db)
        }
    }
}
