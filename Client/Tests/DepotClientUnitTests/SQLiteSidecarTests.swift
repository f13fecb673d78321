import DepotFiles
import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// The rule a switch applies before its commit point: no file beside which SQLite keeps a
/// connection's files is replaced or removed (``SQLiteSidecar``). A table of what is in the
/// folder, what the switch touches, and what the new release itself lists.
@Suite("Files SQLite keeps beside a database")
struct SQLiteSidecarTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        /// Files in the folder.
        let present: [String]
        /// Paths the switch replaces or removes.
        let touched: [String]
        /// Paths of the new release.
        let released: Set<String>
        /// The sidecar refused, or `nil`.
        let refused: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "no sidecar", present: ["db/catalog.sqlite"], touched: ["db/catalog.sqlite"], released: ["db/catalog.sqlite"], refused: nil),
        Row(
            name: "a write-ahead log beside a replaced file",
            present: ["db/catalog.sqlite", "db/catalog.sqlite-wal", "db/catalog.sqlite-shm"],
            touched: ["db/catalog.sqlite"],
            released: ["db/catalog.sqlite"],
            refused: "db/catalog.sqlite-wal"
        ),
        Row(
            name: "only the index, after a crash",
            present: ["catalog.sqlite", "catalog.sqlite-shm"],
            touched: ["catalog.sqlite"],
            released: ["catalog.sqlite"],
            refused: "catalog.sqlite-shm"
        ),
        Row(
            name: "a rollback journal beside a removed file",
            present: ["old.sqlite", "old.sqlite-journal"],
            touched: ["old.sqlite"],
            released: [],
            refused: "old.sqlite-journal"
        ),
        Row(
            name: "a log beside a file the switch does not touch",
            present: ["a.sqlite", "a.sqlite-wal", "b.sqlite"],
            touched: ["b.sqlite"],
            released: ["a.sqlite", "b.sqlite"],
            refused: nil
        ),
        Row(
            name: "a file of the release that is named like a sidecar",
            present: ["data", "data-wal"],
            touched: ["data", "data-wal"],
            released: ["data", "data-wal"],
            refused: nil
        ),
    ]

    @Test("a switch refuses to replace or remove a file SQLite keeps files beside", arguments: rows)
    func rule(_ row: Row) async throws {
        try await withTemporaryDirectory { root in
            for path in row.present {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("x".utf8).write(to: url)
            }
            let folder = try ContainedFolder(root: root.path)
            do {
                try SQLiteSidecar.refuseInUse(row.touched, released: row.released, in: folder)
                #expect(row.refused == nil, "nothing refused")
            } catch let error as SyncError {
                #expect(error.code == .inUse)
                #expect(row.refused.map { error.message.hasPrefix($0 + " ") } == true, "\(error.message)")
            }
        }
    }
}
