import DepotMigrations
import DepotStore
import DepotTestFixtures
import Foundation
import GRDB
import Testing

/// The catalog's schema comes from `migrations/`, in order, and a newer catalog is refused.
@Suite("Catalog schema")
struct CatalogSchemaTests {
    @Test("every SQL file of migrations/ is registered, in order")
    func everyFileRegistered() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!files.isEmpty)
        #expect(CatalogMigrations.all.map { $0.identifier + ".sql" } == files)
    }

    @Test("migrations are applied and recorded in a real SQLite file")
    func applied() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("catalog.sqlite").path
            _ = try Catalog(path: path)
            let queue = try DatabaseQueue(path: path)
            let applied = try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
            #expect(applied == CatalogMigrations.all.map(\.identifier))
            let tables = try queue.read { try String.fetchSet($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            #expect(tables.isSuperset(of: ["file_version", "channel_file", "channel", "release", "release_page", "path_sequence"]))
            // Opening again changes nothing.
            _ = try Catalog(path: path)
        }
    }

    @Test("a catalog with a newer schema is refused with a clear message")
    func newerSchemaRefused() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("catalog.sqlite").path
            _ = try Catalog(path: path)
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9999_from_the_future')") }
            #expect {
                try Catalog(path: path)
            } throws: { error in
                "\(error)".contains("newer schema") && "\(error)".contains("9999_from_the_future")
            }
        }
    }
}
