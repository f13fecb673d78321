import Crypto
import DepotFiles
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Logging
import Testing

@testable import DepotClient

/// A release shipped in the app's bundle (``DepotClient/seed(from:)``): the folder `depot export`
/// writes, read with no server at all, verified like any release, and the base of the next
/// sync's delta.
@Suite("Seed from the app bundle")
struct SeedTests {
    static let key = Curve25519.Signing.PrivateKey()
    /// Nothing listens there: a seed that reached for the network would fail.
    static let noServer = URL(string: "http://127.0.0.1:9/")!

    struct Crash: Error {}

    /// The server's settings: a signing key, its data in `data`.
    static func configuration(data: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.publish.tokens = [InProcessServer.token]
        configuration.channels = ChannelSigner(keys: [key])
        configuration.dataDirectory = data.path
        return configuration
    }

    /// Runs a server on the data folder `data` for the length of `body`.
    static func serving(_ data: URL, _ body: @Sendable (InProcessServer) async throws -> Void) async throws {
        try await InProcessServer.withDataDirectory(data, configuration: configuration(data: data), body)
    }

    /// `depot export`'s tree of what the data folder `data` publishes, written into `bundle`.
    static func export(_ data: URL, to bundle: URL) async throws {
        var logger = Logger(label: "seed-tests")
        logger.logLevel = .critical
        _ = try await exportPublishedTree(configuration: configuration(data: data), to: bundle.path, logger: logger)
    }

    /// A client trusting the server's key, of `server` (none by default).
    static func client(_ folder: URL, layout: FolderLayout = .inPlace, server: URL = noServer) -> DepotClient {
        var configuration = DepotClient.Configuration(trustedKeys: [key.publicKey.rawRepresentation.base64EncodedString()])
        configuration.layout = layout
        return DepotClient(server: server, directory: folder, configuration: configuration)
    }

    /// The release's files: 20 small files in folders, and a text.
    static func files(edition: Int) -> [(String, Data)] {
        (0..<20).map { ("assets/\($0 % 4)/\($0).bin", Fixture.pseudoRandom(count: 3000, seed: UInt64($0 * 2 + 1))) }
            + [("notes.txt", Data("edition \(edition)\n".utf8))]
    }

    /// The file at `path` as the app reads it, in either layout.
    static func read(_ client: DepotClient, _ path: String) throws -> Data? {
        guard let open = try client.openCurrentRelease() else { return nil }
        defer { open.close() }
        return FileManager.default.contents(atPath: try open.url(for: path).path)
    }

    /// Replaces the file at `path` in `folder` with `bytes` (a new file: the export's may be a
    /// link to the store's).
    static func replace(_ path: String, in folder: URL, with bytes: Data) throws {
        let url = folder.appendingPathComponent(path)
        try FileManager.default.removeItem(at: url)
        try bytes.write(to: url)
    }

    @Test("a seed from an exported folder, with no server running, holds the release, verified, in either layout", arguments: FolderLayout.allCases)
    func offline(layout: FolderLayout) async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            try await Self.serving(data) { server in try await server.publish(Self.files(edition: 1)) }
            try await Self.export(data, to: bundle)
            let client = Self.client(root.appendingPathComponent("app/depot"), layout: layout)
            let held = try await client.seed(from: bundle)
            #expect(held.signature == .verified && held.files == 21)
            #expect(client.currentRelease == held)
            for (path, bytes) in Self.files(edition: 1) { #expect(try Self.read(client, path) == bytes, "\(path)") }
            // Again: a no-op.
            #expect(try await client.seed(from: bundle) == held)
        }
    }

    @Test("a seed with one byte of a blob changed, or a forged channel signature, is refused and leaves no folder behind")
    func tampered() async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            try await Self.serving(data) { server in try await server.publish(Self.files(edition: 1)) }
            try await Self.export(data, to: bundle)
            let folder = root.appendingPathComponent("app/depot")

            let (path, bytes) = Self.files(edition: 1)[3]
            var changed = bytes
            changed[100] ^= 1
            let blob = "blobs/" + Fixture.sha256(bytes)
            try Self.replace(blob, in: bundle, with: changed)
            let corrupt = await #expect(throws: SyncError.self) { try await Self.client(folder).seed(from: bundle) }
            #expect(corrupt?.code == .corrupt && corrupt?.message.contains(path) == true, "\(corrupt?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("app").path))
            try Self.replace(blob, in: bundle, with: bytes)

            let channel = bundle.appendingPathComponent("channels/stable")
            let signed = try Data(contentsOf: channel)
            var document = try JSONDecoder().decode(ChannelDocument.self, from: signed)
            let forger = Curve25519.Signing.PrivateKey()
            document.signatures = [
                .init(keyID: document.signatures[0].keyID, signature: try forger.signature(for: Data(document.signedText)).base64EncodedString())
            ]
            try Self.replace("channels/stable", in: bundle, with: try JSONEncoder().encode(document))
            let forged = await #expect(throws: SyncError.self) { try await Self.client(folder).seed(from: bundle) }
            #expect(forged?.code == .untrusted, "\(forged?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("app").path))

            // The bundle as exported: taken.
            try Self.replace("channels/stable", in: bundle, with: signed)
            #expect(try await Self.client(folder).seed(from: bundle).files == 21)
        }
    }

    /// What a hostile bundle (a jailbroken device's, a compromised build's) puts in place of a
    /// file of the export: `fifo`, `link` (to the right bytes, outside the bundle), `folder`.
    static func plant(_ kind: String, at url: URL, outside: URL) throws {
        let bytes = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: url)
        switch kind {
        case "fifo": #expect(mkfifo(url.path, 0o600) == 0)
        case "link":
            try bytes.write(to: outside)
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: outside)
        default: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        }
    }

    @Test(
        "a bundle whose channel document, release document, page or blob is a FIFO, a link (to the right bytes) or a folder is refused at once (no read blocks), leaving no folder",
        arguments: ["channel", "release", "page", "blob"],
        ["fifo", "link", "folder"]
    )
    func hostileEntries(entry: String, kind: String) async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            try await Self.serving(data) { server in try await server.publish(Self.files(edition: 1)) }
            try await Self.export(data, to: bundle)
            let channel = try JSONDecoder().decode(ChannelDocument.self, from: Data(contentsOf: bundle.appendingPathComponent("channels/stable")))
            let release = try JSONDecoder().decode(
                ReleaseDocument.self,
                from: Data(contentsOf: bundle.appendingPathComponent("releases/" + channel.release))
            )
            let target: URL
            switch entry {
            case "channel": target = bundle.appendingPathComponent("channels/stable")
            case "release": target = bundle.appendingPathComponent("releases/" + channel.release)
            case "page": target = bundle.appendingPathComponent("pages/" + (try #require(release.pages.first)))
            default: target = bundle.appendingPathComponent("blobs/" + Fixture.sha256(Self.files(edition: 1)[0].1))
            }
            try Self.plant(kind, at: target, outside: root.appendingPathComponent("outside"))
            let app = root.appendingPathComponent("app")
            let refused = await #expect(throws: SyncError.self) { try await Self.client(app.appendingPathComponent("sync")).seed(from: bundle) }
            #expect([.corrupt, .io, .server].contains(refused?.code), "\(refused?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: app.path))
        }
    }

    @Test(
        "seeded, then synced against the server: only the file that changed is fetched; a seed of an older release then changes nothing; a tampered newer seed leaves the folder as it was",
        arguments: FolderLayout.allCases
    )
    func thenSync(layout: FolderLayout) async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            let newer = root.appendingPathComponent("Seed3")
            let folder = root.appendingPathComponent("app")
            // One server throughout (a restarted test server scans a new public folder); the seeds
            // are read with no server (``noServer``).
            try await Self.serving(data) { server in
                try await server.publish(Self.files(edition: 1))
                try await Self.export(data, to: bundle)
                let seeded = try await Self.client(folder, layout: layout).seed(from: bundle)

                try await server.publish([("notes.txt", Data("edition 2\n".utf8))])
                let client = Self.client(folder, layout: layout, server: URL(string: server.url("/"))!)
                let report = try await client.sync()
                #expect(report.release?.number == seeded.number + 1)
                #expect(report.files.filter(\.outcome.isFetched).map(\.path) == ["notes.txt"], "\(report.files.map(\.path))")
                #expect(report.unchangedCount == 20)
                #expect(try Self.read(client, "notes.txt") == Data("edition 2\n".utf8))
                // The old seed, at a later launch: nothing moves back.
                #expect(try await client.seed(from: bundle) == report.release)
                #expect(try Self.read(client, "notes.txt") == Data("edition 2\n".utf8))

                // A newer seed with a damaged file: refused, the folder as it was.
                try await server.publish([("notes.txt", Data("edition 3\n".utf8))])
                try await Self.export(data, to: newer)
            }
            try Self.replace("blobs/" + Fixture.sha256(Data("edition 3\n".utf8)), in: newer, with: Data("edition 4\n".utf8))
            let client = Self.client(folder, layout: layout)
            let before = client.currentRelease
            await #expect(throws: SyncError.self) { try await client.seed(from: newer) }
            #expect(client.currentRelease == before)
            #expect(try Self.read(client, "notes.txt") == Data("edition 2\n".utf8))
        }
    }

    @Test("a seed of the release the app reverted leaves the folder on the release it went back to: no seed, crash, revert loop at each launch")
    func reverted() async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            let folder = root.appendingPathComponent("app")
            try await Self.serving(data) { server in
                var configuration = Self.client(folder, layout: .releaseFolders).configuration
                configuration.keepsPreviousRelease = true
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                try await server.publish(Self.files(edition: 1))
                let one = try #require(try await client.sync().release)
                // The app's next version ships release 2 in its bundle; the folder takes it by sync.
                try await server.publish([("notes.txt", Data("edition 2\n".utf8))])
                try await Self.export(data, to: bundle)
                #expect(try await client.sync().release?.number == one.number + 1)
                #expect(try client.revert() == one)
                // The next launch seeds before it syncs: release 2 stays refused.
                #expect(try await client.seed(from: bundle) == one)
                #expect(client.currentRelease == one)
                #expect(try Self.read(client, "notes.txt") == Data("edition 1\n".utf8))
            }
        }
    }

    @Test(
        "a seed whose channel document is older than the one the folder followed since (the channel rolled back after the app was built) moves nothing, and throws nothing"
    )
    func rolledBack() async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            let folder = root.appendingPathComponent("app")
            try await Self.serving(data) { server in
                let client = Self.client(folder, server: URL(string: server.url("/"))!)
                try await server.publish(Self.files(edition: 1))
                let one = try #require(try await client.sync().release)
                try await server.publish([("notes.txt", Data("edition 2\n".utf8))])
                try await Self.export(data, to: bundle)
                // Release 2 is found broken on the server: the channel names release 1 again, under a newer serial.
                #expect(try await RolloutFleetTests.send(server, "POST", "/v1/channels/stable/rollback").status == 200)
                let back = try #require(try await client.sync().release)
                #expect(back.id == one.id && back.serial > one.serial)
                // The bundle's document (release 2, an older serial) is stale, not an attack: nothing moves.
                #expect(try await client.seed(from: bundle) == back)
                #expect(try Self.read(client, "notes.txt") == Data("edition 1\n".utf8))
            }
        }
    }

    @Test(
        "a seed crashed at each step of its switch leaves no release or the seed's whole, and the next seed finishes",
        arguments: [SwitchStep.foldersStaged, .journalWritten, .removalsDone, .foldersMoved, .moved(1), .linked, .stateSaved]
    )
    func crash(at step: SwitchStep) async throws {
        try await withTemporaryDirectory { root in
            let (data, bundle) = (root.appendingPathComponent("data"), root.appendingPathComponent("Seed"))
            try await Self.serving(data) { server in try await server.publish(Self.files(edition: 1)) }
            try await Self.export(data, to: bundle)
            for layout in FolderLayout.allCases {
                let folder = root.appendingPathComponent("app-\(layout.rawValue)")
                let client = Self.client(folder, layout: layout)
                var crashing = client
                crashing.switchFault = { if $0 == step { throw Crash() } }
                // A switch to a tree has no removals nor folders nor files to move; one in place
                // points no link.
                let reached = layout == .inPlace ? step != .linked : ![.removalsDone, .foldersMoved, .moved(1)].contains(step)
                do {
                    _ = try await crashing.seed(from: bundle)
                    #expect(!reached, "\(layout): no crash at \(step)")
                } catch is Crash {
                    #expect(reached)
                }
                // What a reader sees: nothing, or the seed whole.
                let seen = try client.withCurrentRelease { $0 }
                if seen != nil {
                    for (path, bytes) in Self.files(edition: 1) { #expect(try Self.read(client, path) == bytes, "\(layout) \(path)") }
                } else {
                    // No release, and none of its files in sight.
                    for path in Self.files(edition: 1).map(\.0) + [ReleaseTrees.link] {
                        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path), "\(layout) \(path)")
                    }
                }
                let held = try await client.seed(from: bundle)
                #expect(held.files == 21 && client.currentRelease == held, "\(layout)")
                for (path, bytes) in Self.files(edition: 1) { #expect(try Self.read(client, path) == bytes, "\(layout) \(path)") }
            }
        }
    }
}
