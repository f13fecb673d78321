import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Issue 57, cause 8: a whole sync against entries a local process planted in the sync folder's
/// staging and partial folders, other than links (``SyncFolderLinkTests``): a folder at a staged
/// file's name, a FIFO at a partial file's name and at its tag. The sync does not hang: each
/// is refused in one line naming it (remove it), and once removed the next sync takes the file.
@Suite("Staging attacks: entries planted in a sync folder")
struct StagingSyncAttackTests {
    @Test(
        "a folder at a staged file's name and FIFOs at its partial file and tag: each refused in one line naming it, no hang; once removed, the sync takes the file"
    )
    func plantedEntries() async throws {
        let sha = SyncFolderLinkTests.databaseSHA
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", SyncFolderLinkTests.database), ("img/logo.png", SyncFolderLinkTests.image)])
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let staged = folder.appendingPathComponent(".depot/staging/\(sha.prefix(2))/\(sha)")
                try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: true)
                let partial = folder.appendingPathComponent(".depot/partial/\(sha).partial")
                try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
                #expect(mkfifo(partial.path, 0o600) == 0)
                #expect(mkfifo(partial.path + ".etag", 0o600) == 0)

                // Refused in one line that names the entry (as a link there is), not waited on.
                let refused = try await failedReport { try await SyncTests.client(server, folder).sync() }
                let error = refused.files.first { $0.path == "db.bin" }?.error ?? ""
                #expect(error.contains("\(sha).partial is not a folder or file Depot made"), "\(error)")
                try FileManager.default.removeItem(atPath: partial.path)
                try FileManager.default.removeItem(atPath: partial.path + ".etag")
                let again = try await failedReport { try await SyncTests.client(server, folder).sync() }
                let staging = again.files.first { $0.path == "db.bin" }?.error ?? ""
                #expect(staging.contains("\(sha) is not a folder or file Depot made"), "\(staging)")
                // Once the planted entries are gone, the next sync takes the file.
                try FileManager.default.removeItem(at: staged)
                let report = try await SyncTests.client(server, folder).sync()
                #expect(report.failedCount == 0, "\(report.files.map { $0.error ?? "" })")
                #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == SyncFolderLinkTests.database)
            }
        }
    }
}
