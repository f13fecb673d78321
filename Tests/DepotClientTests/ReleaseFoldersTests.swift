import Crypto
import DepotFiles
import DepotHTTP
import DepotServer
import DepotTestSupport
import Foundation
import GRDB
import Testing

@testable import DepotClient

/// The release-folders layout (``FolderLayout/releaseFolders``): a folder per release behind the
/// link `current`, so that an app keeps its database open across an apply.
@Suite("Release folders")
struct ReleaseFoldersTests {
    static func client(_ server: some TestServer, _ folder: URL) -> DepotClient {
        var configuration = DepotClient.Configuration()
        configuration.layout = .releaseFolders
        return DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
    }

    /// The trees in the folder.
    static func trees(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(ReleaseTrees.path).path)) ?? [])
            .filter(ReleaseTrees.isName).sorted()
    }

    static func sha256(_ url: URL) throws -> String { Hex.string(SHA256.hash(data: try Data(contentsOf: url))) }

    @Test(
        "the app holds release 1 open in WAL mode, with writes: a sync to release 2 applies; the app reads release 1 with its edits until it reopens on release 2 exactly"
    )
    func openInWALMode() async throws {
        let (one, two) = (try Fixture.catalog(release: 1, rows: 5000), try Fixture.catalog(release: 2, rows: 5000))
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db/catalog.sqlite", one)])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let held = try #require(try client.openCurrentRelease())
                let path = try held.url(for: "db/catalog.sqlite").path
                let app = try DatabaseQueue(path: path)
                try await app.write { try $0.execute(sql: "UPDATE item SET body = 'release 1, edited' WHERE id % 2 = 0") }
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))

                try await server.publish([("db/catalog.sqlite", two)])
                #expect(try await client.sync().release?.number == 2)
                // The app's connection: release 1, with its edits, beside its own -wal.
                #expect(try await app.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE body = 'release 1, edited'") } == 2500)
                // A new connection on the current release: release 2 exactly, the publisher's bytes.
                let next = try #require(try client.openCurrentRelease())
                #expect(next.release.number == 2 && next.directory != held.directory)
                #expect(try OpenDatabaseTests.releases(at: next.url(for: "db/catalog.sqlite").path) == ["release 2": 5000])
                #expect(Self.trees(folder).count == 2, "release 1's folder stays while the app holds it")

                // The app reopens: release 1's folder goes once it is let go.
                try app.close()
                held.close()
                #expect(Self.trees(folder) == [next.directory.lastPathComponent])
                #expect(!FileManager.default.fileExists(atPath: path))
                next.close()
            }
        }
    }

    @Test(
        "no release folder holds bytes but the publisher's and the app's own: a database the app wrote, or a linked file it changed, is fetched again for the next release"
    )
    func publisherBytesOnly() async throws {
        let (catalog, other) = (try Fixture.catalog(release: 1, rows: 2000), try Fixture.catalog(release: 9, rows: 10))
        let (logo, notes) = (Data(repeating: 7, count: 100_000), Data("notes 1\n".utf8))
        try await InProcessServer.withPublishing { server in
            try await server.publish([("catalog.sqlite", catalog), ("other.sqlite", other), ("img/logo.png", logo), ("notes.txt", notes)]
            )
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let held = try #require(try client.openCurrentRelease())
                // The app writes to its database, checkpointed into the file itself.
                let catalogURL = try held.url(for: "catalog.sqlite")
                let published = try #require(try FileManager.default.attributesOfItem(atPath: catalogURL.path)[.modificationDate] as? Date)
                let app = try DatabaseQueue(path: catalogURL.path)
                try await app.write { try $0.execute(sql: "UPDATE item SET body = 'the app''s own' WHERE id <= 100") }
                try await app.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                // Its modification time put back as the release gave it (a write within the second,
                // on a file system of whole seconds): the database's SHA-256 still tells.
                try FileManager.default.setAttributes([.modificationDate: published], ofItemAtPath: catalogURL.path)
                // Files other than databases are shared with the next release, and read-only.
                let logoURL = try held.url(for: "img/logo.png")
                #expect(try FileManager.default.attributesOfItem(atPath: logoURL.path)[.posixPermissions] as? Int == 0o444)
                // An app that writes to one anyway changes it where it is; the next release does not take it.
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: try held.url(for: "notes.txt").path)
                try Data("the app's notes\n".utf8).write(to: try held.url(for: "notes.txt"))

                // Release 2 changes none of the three files: only a new one.
                try await server.publish([("new.txt", Data("new\n".utf8))])
                // The database the app did not write to is copied, as the plan says.
                let plan = try await client.check()
                #expect(plan.copiedBytes == Int64(other.count), "\(plan)")
                #expect(plan.requiredBytes == plan.files.reduce(0) { $0 + $1.size } + Int64(other.count))
                let report = try await client.sync()
                #expect(report.release?.number ?? 0 > held.release.number)
                #expect(Set(report.files.map(\.path)) == ["catalog.sqlite", "notes.txt", "new.txt"], "\(report.files)")
                let next = try #require(try client.openCurrentRelease())
                defer { next.close() }
                #expect(try Self.sha256(next.url(for: "catalog.sqlite")) == Hex.string(SHA256.hash(data: catalog)))
                #expect(try Data(contentsOf: next.url(for: "notes.txt")) == notes)
                #expect(try Data(contentsOf: next.url(for: "img/logo.png")) == logo)
                #expect(try Data(contentsOf: next.url(for: "other.sqlite")) == other)
                // The unchanged logo is one file in both releases: a release costs what changed.
                // The unchanged database is a copy of its own.
                let inodes = try [logoURL, next.url(for: "img/logo.png"), held.url(for: "other.sqlite"), next.url(for: "other.sqlite")].map {
                    try FileManager.default.attributesOfItem(atPath: $0.path)[.systemFileNumber] as? Int
                }
                #expect(inodes[0] == inodes[1] && inodes[2] != inodes[3])
                // Release 1 keeps what the app wrote to it.
                #expect(try await app.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE body = 'the app''s own'") } == 100)
                #expect(try Data(contentsOf: held.url(for: "notes.txt")) == Data("the app's notes\n".utf8))
                try app.close()
                held.close()
            }
        }
    }

    /// Where an apply is cut short, as by a power cut.
    static let applyCrashPoints: [SwitchStep] = [.journalWritten, .linked, .stateSaved]

    @Test("an apply cut short at any step: the link always names a whole release; a reader finishes it, release 2 whole", arguments: applyCrashPoints)
    func applyCrash(at point: SwitchStep) async throws {
        var configuration = DepotClient.Configuration()
        configuration.layout = .releaseFolders
        try await SyncStepsTests.withNextDownloaded(configuration: configuration) { folder, client, next in

            var crashing = client
            crashing.switchFault = { step in if step == point { throw CancellationError() } }
            #expect(throws: CancellationError.self) { try crashing.apply() }
            // Whatever the link names now is one release whole, read through the link itself.
            let linked = { (path: String) in SyncTests.contents(folder, "current/" + path).map { String(decoding: $0, as: UTF8.self) } }
            let seen = [linked("a.txt"), linked("b.txt"), linked("old.txt")]
            #expect(seen == ["one\n", nil, "old\n"] || seen == ["two\n", "new\n", nil], "\(seen)")

            let open = try #require(try client.openCurrentRelease())
            defer { open.close() }
            let read = ["a.txt", "b.txt", "old.txt"].map { try? Data(contentsOf: open.url(for: $0)) }
            #expect(open.release.number == next)
            #expect(read == [Data("two\n".utf8), Data("new\n".utf8), nil], "\(read)")
            #expect(try client.apply().number == next)
            #expect(client.folder.read(.staged) == nil)
        }
    }

    @Test("a download killed before its folder is made, then apply: refused, nothing changed; the half-made folder is removed")
    func halfMadeTree() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let first = Self.trees(folder)
                try await server.publish([("a.txt", Data("two\n".utf8))])
                _ = try await client.download()
                // As if killed while making the tree: the tree is there, the record of it not.
                try client.folder.remove(.staged)
                #expect(Self.trees(folder).count == 2)
                let refused = #expect(throws: SyncError.self) { try client.apply() }
                #expect(refused?.code == .notStaged)
                #expect(client.currentRelease?.number == 1 && SyncTests.contents(folder, "current/a.txt") == Data("one\n".utf8))
                // The next step removes the orphan before it makes its own.
                #expect(try await client.check().release?.number == 2)
                #expect(Self.trees(folder) == first)
            }
        }
    }

    @Test("a link planted in place of current, or a journal naming a folder outside the trees, is refused with one line")
    func hostileLink() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let link = folder.appendingPathComponent(ReleaseTrees.link).path
                try FileManager.default.removeItem(atPath: link)
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc")
                let planted = await #expect(throws: SyncError.self) { try await client.sync() }
                #expect(planted?.message.contains("not a release folder Depot made") == true, "\(String(describing: planted))")
                #expect(throws: SyncError.self) { try client.openCurrentRelease() }

                var journal = ReleaseJournal(state: SyncState(), moves: [], removals: [], tree: "../../../etc")
                #expect(journal.problem?.contains("names no release folder") == true)
                journal.tree = ReleaseTrees.newName(number: 3)
                #expect(journal.problem == nil)
            }
        }
    }

    @Test(
        "a rollback to the release an app still holds open gets a folder of its own: the app's copy, with its writes, is neither reused nor removed under it"
    )
    func rollbackWhileHeld() async throws {
        let (one, two) = (try Fixture.catalog(release: 1, rows: 1000), try Fixture.catalog(release: 2, rows: 1000))
        try await InProcessServer.withPublishing { server in
            try await server.publish([("catalog.sqlite", one)])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let held = try #require(try client.openCurrentRelease())
                let app = try DatabaseQueue(path: try held.url(for: "catalog.sqlite").path)
                try await app.write { try $0.execute(sql: "UPDATE item SET body = 'edited' WHERE id = 1") }
                try await server.publish([("catalog.sqlite", two)])
                #expect(try await client.sync().release?.number == 2)
                let rollback = try await RolloutFleetTests.send(server, "POST", "/v1/channels/stable/rollback")
                #expect(rollback.status == 200, "\(rollback.bodyText)")
                #expect(try await client.sync().release?.number == 1)

                let current = try #require(try client.openCurrentRelease())
                #expect(current.release.number == 1 && current.directory != held.directory)
                #expect(try OpenDatabaseTests.releases(at: current.url(for: "catalog.sqlite").path) == ["release 1": 1000])
                #expect(try await app.read { try String.fetchOne($0, sql: "SELECT body FROM item WHERE id = 1") } == "edited")
                // Release 2's folder, held by nobody, went at the apply; the app's goes when it lets go.
                #expect(Self.trees(folder).count == 2)
                try app.close()
                held.close()
                #expect(Self.trees(folder) == [current.directory.lastPathComponent])
                current.close()
            }
        }
    }

    @Test("a link planted in place of the folder of releases, or of a release's lock, is refused with one line; nothing outside is written")
    func plantedTreesFolder() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                try await withTemporaryDirectory { outside in
                    let client = Self.client(server, folder)
                    try FileManager.default.createDirectory(at: folder.appendingPathComponent(".depot"), withIntermediateDirectories: true)
                    let trees = folder.appendingPathComponent(ReleaseTrees.path).path
                    try FileManager.default.createSymbolicLink(atPath: trees, withDestinationPath: outside.path)
                    let error = await #expect(throws: SyncError.self) { try await client.sync() }
                    #expect(error?.message.contains("not a folder or file Depot made") == true, "\(String(describing: error))")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)

                    // A lock planted as a link to a file outside: opening the release refuses it.
                    try FileManager.default.removeItem(atPath: trees)
                    _ = try await client.sync()
                    let tree = try #require(Self.trees(folder).first)
                    let lock = folder.appendingPathComponent(ReleaseTrees.lockPath(tree)).path
                    try? FileManager.default.removeItem(atPath: lock)
                    let target = outside.appendingPathComponent("target")
                    try Data("keep\n".utf8).write(to: target)
                    try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: target.path)
                    #expect(throws: SyncError.self) { try client.openCurrentRelease() }
                    #expect(try Data(contentsOf: target) == Data("keep\n".utf8))
                }
            }
        }
    }

    @Test("a folder synced in place is refused in release folders, with one line")
    func layoutKept() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                _ = try await SyncTests.client(server, folder).sync()
                let error = await #expect(throws: SyncError.self) { try await Self.client(server, folder).sync() }
                #expect(error?.message.contains("in place, not in release folders") == true, "\(String(describing: error))")
                #expect(SyncTests.contents(folder, "a.txt") == Data("one\n".utf8))
            }
        }
    }
}
