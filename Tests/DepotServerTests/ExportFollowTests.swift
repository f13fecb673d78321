import Crypto
import DepotHTTP
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// `export.directory`: a folder the server keeps in step with what it publishes.
@Suite("Export folder in step")
struct ExportFollowTests {
    static let auth = PublishToken.authorization

    /// The document the origin serves at `/channels/stable`, and the one in the export.
    static func documents(_ connection: inout InProcessConnection, export: URL) async throws -> (served: Data, exported: Data?) {
        let served = Data(try await connection.request("GET", "/channels/stable").body)
        return (served, FileManager.default.contents(atPath: export.appendingPathComponent("channels/stable").path))
    }

    /// The documents once the export has caught up with the origin: it follows the channel
    /// documents at its own pace (``ExportFollower``). The bound only guards a hang.
    static func caughtUp(_ connection: inout InProcessConnection, export: URL) async throws -> (served: Data, exported: Data?) {
        var documents = try await Self.documents(&connection, export: export)
        // Hang guard: slowest seen 1.3 s under two busy loops (the whole test).
        for _ in 0..<2_400 where documents.exported != documents.served {
            try await Task.sleep(for: .milliseconds(25))
            documents = try await Self.documents(&connection, export: export)
        }
        return documents
    }

    static func releaseID(_ document: Data) throws -> String {
        try JSONDecoder().decode(ChannelDocument.self, from: document).release
    }

    @Test(
        "after every publish and rollback the folder's channel document is the origin's, with everything it names; retention removes what it removed"
    )
    func followsChanges() async throws {
        try await withTemporaryDirectory { root in
            let export = root.appendingPathComponent("export")
            var configuration = ServerConfiguration(
                publish: .init(keepVersions: 2, keepReleases: 2, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
            )
            configuration.exportDirectory = export.path
            let versions = (1...3).map { Data("version \($0)\n".utf8) + Fixture.noise.prefix(20_000) }
            try await InProcessServer.withPublishing(configuration: configuration) { server in
                try await server.connection { connection in
                    var releases: [String] = []
                    for version in versions {
                        #expect(try await connection.publish("db.sqlite", version).status == 201)
                        let (served, exported) = try await Self.caughtUp(&connection, export: export)
                        #expect(exported == served, "the export did not catch up")
                        let id = try Self.releaseID(served)
                        releases.append(id)
                        #expect(FileManager.default.fileExists(atPath: export.appendingPathComponent("releases/\(id)").path))
                        #expect(
                            FileManager.default.contents(atPath: export.appendingPathComponent("blobs/\(Fixture.sha256(version))").path) == version
                        )
                    }
                    // Release 1 is not among the channel's last two releases (publish.keepReleases,
                    // per channel), and its version not one of the path's last two: retention
                    // removes both after the (zero) grace period, from the store and from the
                    // export. Waited for before the rollback: once stable is back on release 2,
                    // release 1 is its rollback target and kept, so a collection that came after
                    // the rollback would keep it (retention per channel, issue 57).
                    // The release and the version go in collections of their own: a version
                    // retired in a second is removed by a collection of a later second.
                    let gone = export.appendingPathComponent("releases/\(releases[0])").path
                    let goneBlob = export.appendingPathComponent("blobs/\(Fixture.sha256(versions[0]))").path
                    // Hang guard: slowest seen 1.3 s under two busy loops (the whole test).
                    for _ in 0..<2_400 where FileManager.default.fileExists(atPath: gone) || FileManager.default.fileExists(atPath: goneBlob) {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    #expect(!FileManager.default.fileExists(atPath: gone))
                    #expect(!FileManager.default.fileExists(atPath: goneBlob))
                    #expect(try await connection.request("GET", "/releases/\(releases[0])").status == 404)

                    let rollback = try await connection.request("POST", "/v1/channels/stable/rollback", headers: [Self.auth])
                    #expect(rollback.status == 200)
                    let (served, exported) = try await Self.caughtUp(&connection, export: export)
                    #expect(exported == served)
                    #expect(try Self.releaseID(served) == releases[1])
                    for kept in releases[1...] {
                        #expect(FileManager.default.fileExists(atPath: export.appendingPathComponent("releases/\(kept)").path))
                    }
                    #expect(
                        FileManager.default.contents(atPath: export.appendingPathComponent("blobs/\(Fixture.sha256(versions[1]))").path)
                            == versions[1]
                    )
                }
            }
        }
    }

    @Test("a publish answers once the catalog and the served documents have the release, not after the export; the export then catches up")
    func publishDoesNotWaitForExport() async throws {
        try await withTemporaryDirectory { root in
            let export = root.appendingPathComponent("export")
            let held = Mutex(true)
            var configuration = ServerConfiguration()
            configuration.exportDirectory = export.path
            // The export is held back, as by a slow disk's fsyncs, until the test lets it go.
            configuration.beforeExport = {
                while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
            }
            try await InProcessServer.withPublishing(configuration: configuration) { server in
                try await server.connection { connection in
                    let version = Data("one\n".utf8)
                    #expect(try await connection.publish("a.txt", version).status == 201)
                    let (served, exported) = try await Self.documents(&connection, export: export)
                    #expect(try Self.releaseID(served).count == 64, "the origin serves the new release at once")
                    #expect(exported == nil, "the export ran before the publish answered")
                    #expect(!FileManager.default.fileExists(atPath: export.appendingPathComponent("blobs/\(Fixture.sha256(version))").path))

                    held.withLock { $0 = false }
                    let caught = try await Self.caughtUp(&connection, export: export)
                    #expect(caught.exported == caught.served)
                    #expect(FileManager.default.contents(atPath: export.appendingPathComponent("blobs/\(Fixture.sha256(version))").path) == version)
                }
            }
        }
    }

    @Test("the folder's channel documents are signed again before they expire, with no change")
    func resigns() async throws {
        try await withTemporaryDirectory { root in
            let export = root.appendingPathComponent("export")
            var configuration = ServerConfiguration(channels: ChannelSigner(keys: [Curve25519.Signing.PrivateKey()], validity: .seconds(4)))
            configuration.exportDirectory = export.path
            try await InProcessServer.withPublishing(configuration: configuration) { server in
                try await server.connection { connection in
                    #expect(try await connection.publish("a.txt", Data("a\n".utf8)).status == 201)
                    _ = try await Self.caughtUp(&connection, export: export)
                    let path = export.appendingPathComponent("channels/stable").path
                    let first = try JSONDecoder().decode(ChannelDocument.self, from: try #require(FileManager.default.contents(atPath: path)))
                    var later = first
                    // Hang guard: slowest seen 1.2 s under two busy loops (the whole test).
                    for _ in 0..<1_200 where later.expires == first.expires {
                        try await Task.sleep(for: .milliseconds(100))
                        later = try JSONDecoder().decode(ChannelDocument.self, from: try #require(FileManager.default.contents(atPath: path)))
                    }
                    let now = HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970))
                    #expect(try #require(HTTPDate(parsing: later.expires, now: now)) > #require(HTTPDate(parsing: first.expires, now: now)))
                    #expect(later.serial == first.serial)
                    #expect(!later.signatures.isEmpty)
                }
            }
        }
    }
}
