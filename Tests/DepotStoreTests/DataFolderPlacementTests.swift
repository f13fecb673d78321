import DepotHTTP
import DepotStore
import DepotTestFixtures
import Foundation
import Testing

/// A restore or an import checks that its data folder is empty at its start, builds (for
/// minutes, for a large import), then puts the folder in place: a server started on that data
/// folder meanwhile (a systemd restart) keeps its catalog and what it acknowledged (issue 57,
/// defect 7). The placement never removes what it did not make.
@Suite("Data folder placement")
struct DataFolderPlacementTests {
    enum Rebuild: String, CaseIterable { case restore, `import` }

    @Test(
        "a data folder filled between the check and the placement (a server started on it) is kept whole; the placement is refused, its staging removed",
        arguments: Rebuild.allCases
    )
    func filledMeanwhile(_ rebuild: Rebuild) async throws {
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            // What the server started meanwhile holds: its catalog and an acknowledged upload.
            let blob = data.appendingPathComponent("blobs/ab/ab" + String(repeating: "0", count: 62))
            let serverStarts = {
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                _ = try Catalog(path: data.appendingPathComponent("catalog.sqlite").path)
                try FileManager.default.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("acknowledged with 201".utf8).write(to: blob)
            }
            do {
                switch rebuild {
                case .restore:
                    let source = root.appendingPathComponent("source")
                    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
                    _ = try Catalog(path: source.appendingPathComponent("catalog.sqlite").path)
                    let backup = root.appendingPathComponent("backup")
                    _ = try await DataBackup.backup(data: source, to: backup)
                    _ = try await DataRestore.restore(
                        from: backup,
                        to: data,
                        serialMargin: 1000,
                        releaseMargin: 100,
                        now: 1_800_000_000,
                        beforePlacing: serverStarts
                    )
                case .import:
                    let tree = root.appendingPathComponent("tree")
                    try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
                    _ = try await DataImport.build(
                        tree: tree,
                        channels: [],
                        data: data,
                        serialMargin: 1000,
                        releaseMargin: 100,
                        now: HTTPDate(secondsSince1970: 1_800_000_000),
                        beforePlacing: serverStarts
                    )
                }
                Issue.record("The \(rebuild) put its folder in place over a data folder in use")
            } catch {
                #expect("\(error)".contains("is not empty: something was put there meanwhile"), "\(error)")
            }
            #expect(try Data(contentsOf: blob) == Data("acknowledged with 201".utf8))
            let catalog = try Catalog(path: data.appendingPathComponent("catalog.sqlite").path)
            #expect(try await Maintenance(catalog).integrityCheck() == "ok")
            // The server's catalog, not the rebuilt one: no rebuild in its audit trail.
            #expect(try await AuditLog(catalog).auditRecords(limit: 5).isEmpty)
            let left = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix(".data.") }
            #expect(left.isEmpty, "\(left)")
        }
    }
}
