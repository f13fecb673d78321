import DepotTestFixtures
import Foundation
import GRDB

extension Fixture {
    /// An app's SQLite catalog, in WAL mode as apps keep theirs: a table `item(id, body)` of
    /// `rows` rows, each `body` naming the release it is of (`release 7, item 12`), so that a
    /// reader can tell a mix of two releases.
    public static func catalog(release: Int, rows: Int) throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        _ = try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for id in 1...rows { try db.execute(sql: "INSERT INTO item VALUES (?, ?)", arguments: [id, "release \(release), item \(id)"]) }
        }
        try queue.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
