import DepotServer
import DepotTestSupport
import Foundation
import GRDB
import Testing

@testable import DepotClient

/// Issue 41's reproduction: an app keeps its SQLite catalog open in WAL mode, with writes not
/// yet checkpointed, while a sync replaces the file. SQLite would replay the old file's `-wal`
/// onto the new file's pages: a mix of two releases that `integrity_check` calls ok. A switch
/// never places a file beside `-wal`, `-shm` or `-journal` files that belong to another.
@Suite("An app's open database")
struct OpenDatabaseTests {
    /// How many rows of the catalog at `path` are of each release, read by a new connection.
    static func releases(at path: String) throws -> [String: Int] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT substr(body, 1, 9) AS release, count(*) AS n FROM item GROUP BY 1")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["release"] as String, $0["n"] as Int) })
        }
    }

    @Test("a sync to release 2 while the app holds release 1 open in WAL mode, with writes: refused, nothing changed; once closed, release 2 exactly")
    func openInWALMode() async throws {
        let (one, two) = (try Fixture.catalog(release: 1, rows: 5000), try Fixture.catalog(release: 2, rows: 5000))
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db/catalog.sqlite", one)])
            try await withTemporaryDirectory { folder in
                let client = SyncTests.client(server, folder)
                _ = try await client.sync()
                let path = folder.appendingPathComponent("db/catalog.sqlite").path

                // The app: its connection stays open, its writes in the -wal.
                let app = try DatabaseQueue(path: path)
                try await app.write { try $0.execute(sql: "UPDATE item SET body = 'release 1, edited' WHERE id % 2 = 0") }
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))

                try await server.publish([("db/catalog.sqlite", two)])
                let error = await #expect(throws: SyncError.self) { try await client.sync() }
                #expect(error?.message.contains("db/catalog.sqlite-wal") == true, "\(String(describing: error))")
                #expect(client.currentRelease?.number == 1)
                // Nothing changed: the app's file and connection are release 1 with its edits.
                #expect(try await app.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE body LIKE 'release 1%'") } == 5000)

                // The app closes its database: the next sync switches, and a new connection sees
                // release 2 exactly.
                try app.close()
                let report = try await client.sync()
                #expect(report.release?.number == 2)
                #expect(report.files.map(\.outcome) == [.staged], "the download was kept: \(report.files)")
                #expect(try Self.releases(at: path) == ["release 2": 5000])
            }
        }
    }
}
