import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 40, defect 16: links planted in the sync folder (by another process of the app's
/// container) at every place a sync creates, writes, renames or removes something. Each is
/// refused with one line, nothing outside the folder is written or removed, and once the link
/// is gone the next sync succeeds.
@Suite("Links planted in the sync folder")
struct SyncFolderLinkTests {
    /// Large enough for a partial file (not fetched into memory); random, so no gzip variant.
    static let database = Fixture.pseudoRandom(count: 3_000_000, seed: 61)
    static let image = Data("a logo".utf8)
    static let databaseSHA = Fixture.sha256(database)

    /// A place in the sync folder, and what plants the link there: the link's path, relative to
    /// the folder, and whether its target (outside the folder) is a folder or a file.
    struct Place: CustomStringConvertible, Sendable {
        let link: String
        let targetIsFolder: Bool
        var description: String { link }
    }

    static let places: [Place] = [
        Place(link: ".depot", targetIsFolder: true),
        Place(link: ".depot/partial", targetIsFolder: true),
        Place(link: ".depot/staging", targetIsFolder: true),
        Place(link: ".depot/staging/\(databaseSHA.prefix(2))", targetIsFolder: true),
        Place(link: ".depot/releases", targetIsFolder: true),
        Place(link: ".depot/pages", targetIsFolder: true),
        Place(link: ".depot/partial/\(databaseSHA).partial", targetIsFolder: false),
        Place(link: ".depot/partial/\(databaseSHA).partial.etag", targetIsFolder: false),
        Place(link: ".depot/sync.lock", targetIsFolder: false),
        Place(link: ".depot/read.lock", targetIsFolder: false),
        Place(link: "img", targetIsFolder: true),
    ]

    @Test("a link at each place a sync touches is refused; what it points to is untouched", arguments: places)
    func planted(_ place: Place) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", Self.database), ("img/logo.png", Self.image)])
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let outside = root.appendingPathComponent("outside")
                // What the link points to: a folder holding one file, or a file.
                let kept = Data("not Depot's".utf8)
                if place.targetIsFolder {
                    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                    try kept.write(to: outside.appendingPathComponent("keep.txt"))
                } else {
                    try kept.write(to: outside)
                }
                let link = folder.appendingPathComponent(place.link)
                try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

                let client = SyncTests.client(server, folder)
                let refusal: String
                do {
                    let report = try await client.sync()
                    Issue.record("the sync went through a link: \(report.files)")
                    refusal = ""
                } catch let error as SyncError {
                    if let report = error.report {
                        // Its files failed: the report names each refusal.
                        refusal = report.files.filter { $0.outcome == .failed }.map { $0.error ?? "" }.joined(separator: "; ")
                    } else {
                        #expect(error.code == .io)
                        refusal = error.message
                    }
                }
                #expect(refusal.contains("a link?"), "\(refusal)")
                #expect(!refusal.contains("\n"))

                // Nothing outside was written, made or removed.
                if place.targetIsFolder {
                    let names = try FileManager.default.contentsOfDirectory(atPath: outside.path)
                    #expect(names == ["keep.txt"], "written into the link's target")
                    #expect(try Data(contentsOf: outside.appendingPathComponent("keep.txt")) == kept)
                } else {
                    #expect(try Data(contentsOf: outside) == kept, "the link's target was rewritten")
                }
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("db.bin").path), "a release applied in part")

                // Once the link is gone, the folder syncs.
                try FileManager.default.removeItem(at: link)
                let report = try await client.sync()
                #expect(report.failedCount == 0, "\(report.files)")
                #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.database)
                #expect(try Data(contentsOf: folder.appendingPathComponent("img/logo.png")) == Self.image)
            }
        }
    }

    /// Depot's own small files in `.depot/` are replaced whole, never written in place: a link in
    /// place of one is replaced by the file, its target neither read as Depot's nor written. A
    /// link for the switch's journal is refused, as a switch may be under way.
    @Test("a link in place of one of Depot's own files is replaced (the journal's refused), not written through", arguments: OwnFile.allCases)
    func ownFile(_ file: OwnFile) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("img/logo.png", Self.image)])
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let outside = root.appendingPathComponent("outside")
                let kept = Data("not Depot's".utf8)
                try kept.write(to: outside)
                let link = folder.appendingPathComponent(file.rawValue)
                try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

                let client = SyncTests.client(server, folder)
                if file == .journal {
                    // A switch may be under way: it is not guessed at, it is refused, in one line.
                    let error = await #expect(throws: SyncError.self) { try await client.sync() }
                    #expect(error?.code == .io && error?.message.contains("a link?") == true, "\(String(describing: error))")
                    #expect(try Data(contentsOf: outside) == kept, "the link's target was written")
                    try FileManager.default.removeItem(at: link)
                }
                let report = try await client.sync()
                #expect(report.failedCount == 0, "\(report.files)")
                // What each file is written by: a sync (state, journal), a rollout (install id),
                // a root walk (root), an updater's check (its stamp).
                switch file {
                case .installID: _ = try client.installID()
                case .root: try client.folder.replace(.root, with: Array("{}".utf8))
                case .updater: _ = await DepotUpdater(client: client).checkNow()
                case .state, .journal, .staged: break
                }
                #expect(try Data(contentsOf: outside) == kept, "the link's target was written")
                let kind = try? FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType
                #expect(kind != .typeSymbolicLink, "the link is still there")
                #expect(try Data(contentsOf: folder.appendingPathComponent("img/logo.png")) == Self.image)
            }
        }
    }

    /// Issue 57, cause 1: a staged file is read (its check), moved and removed through the
    /// folder's descriptor. A link planted at a staged file's name, to an outside file holding
    /// the very content, is not taken for the staged file: it was read through and then moved
    /// into place, leaving the release's file a link to a file another process keeps writing.
    @Test("a link at a staged file's name is not read as staged nor moved into place; the file is downloaded")
    func stagedLink() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", Self.database), ("img/logo.png", Self.image)])
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let outside = root.appendingPathComponent("outside.bin")
                try Self.database.write(to: outside)
                let staged = folder.appendingPathComponent(".depot/staging/\(Self.databaseSHA.prefix(2))/\(Self.databaseSHA)")
                try FileManager.default.createDirectory(at: staged.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(at: staged, withDestinationURL: outside)

                let report = try await SyncTests.client(server, folder).sync()
                #expect(report.failedCount == 0, "\(report.files)")
                #expect(report.files.first { $0.path == "db.bin" }?.outcome != .staged, "the link was taken for the staged file")
                let placed = folder.appendingPathComponent("db.bin")
                let kind = try FileManager.default.attributesOfItem(atPath: placed.path)[.type] as? FileAttributeType
                #expect(kind == .typeRegular, "db.bin is \(String(describing: kind)), not a file of its own")
                #expect(try Data(contentsOf: outside) == Self.database, "the link's target was changed")
                // What another process writes to its file afterwards is not the release's.
                try Data("rewritten".utf8).write(to: outside)
                #expect(try Data(contentsOf: placed) == Self.database)
            }
        }
    }

    /// The folder is held by a descriptor: one removed and made again between two syncs of one
    /// client must be opened again, not written through the descriptor of the removed one.
    @Test("a sync folder removed between two syncs of one client is made again and synced whole")
    func removedBetweenSyncs() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("img/logo.png", Self.image)])
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let client = SyncTests.client(server, folder)
                #expect(try await client.sync().failedCount == 0)
                try FileManager.default.removeItem(at: folder)
                #expect(try await client.sync().failedCount == 0)
                #expect(try Data(contentsOf: folder.appendingPathComponent("img/logo.png")) == Self.image)
            }
        }
    }
}
