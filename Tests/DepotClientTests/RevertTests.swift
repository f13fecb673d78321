import Crypto
import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// ``DepotClient/revert()``: back to the previous release's folder when the app judges the new
/// one broken, remembered so that a sync does not take it again, reported `failed`.
@Suite("Revert to the previous release")
struct RevertTests {
    struct Crash: Error {}

    static func client(_ server: some TestServer, _ folder: URL, layout: FolderLayout = .releaseFolders, keeps: Bool = true) -> DepotClient {
        var configuration = DepotClient.Configuration(sendsReports: true)
        configuration.layout = layout
        configuration.keepsPreviousRelease = keeps
        return DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
    }

    /// Publishes `text` as `a.txt`: a new release.
    static func publish(_ server: some TestServer, _ text: String) async throws {
        try await server.publish([("a.txt", Data(text.utf8))])
    }

    /// `a.txt` as the link `current` names it: what a reader opening the folder now gets.
    static func current(_ folder: URL) -> String? {
        FileManager.default.contents(atPath: folder.appendingPathComponent("current/a.txt").path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The reports waiting in the folder's queue: (kind, release id).
    static func queued(_ folder: URL) throws -> [(kind: String, release: String)] {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(ReportQueue.file).path) else { return [] }
        let reports = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return reports.map { (($0["kind"] as? String) ?? "", ($0["release"] as? String) ?? "") }
    }

    @Test(
        "revert after a sync restores the old files and `current`, queues a failed report; the next sync stays while the channel names the bad release, and takes a newer one"
    )
    func restores() async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server, "one\n")
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                let one = try #require(try await client.sync().release)
                try await Self.publish(server, "two\n")
                let two = try #require(try await client.sync().release)
                #expect(Self.current(folder) == "two\n")

                #expect(try client.revert() == one)
                #expect(Self.current(folder) == "one\n" && client.currentRelease == one)
                let open = try #require(try client.openCurrentRelease())
                #expect(FileManager.default.contents(atPath: try open.url(for: "a.txt").path) == Data("one\n".utf8))
                open.close()
                let queued = try Self.queued(folder)
                #expect(queued.contains { $0 == ("failed", two.id) }, "\(queued)")
                #expect(ReleaseFoldersTests.trees(folder).count == 1, "release 2's folder goes")

                // The channel still names release 2: the sync stays on release 1, and sends the report.
                let stay = try await client.sync()
                #expect(stay.release == one && Self.current(folder) == "one\n")
                #expect(try Self.queued(folder).isEmpty)
                #expect(try await client.check().release == one)

                try await Self.publish(server, "three\n")
                #expect(try await client.sync().release?.number == two.number + 1)
                #expect(Self.current(folder) == "three\n")
            }
        }
    }

    @Test("revert throws, naming why: in place; with no previous release; with the previous folder not kept")
    func refusals() async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server, "one\n")
            try await withTemporaryDirectory { root in
                let inPlace = Self.client(server, root.appendingPathComponent("in-place"), layout: .inPlace)
                _ = try await inPlace.sync()
                let notFolders = #expect(throws: SyncError.self) { try inPlace.revert() }
                #expect(notFolders?.code == .io && notFolders?.message.contains("release-folders layout") == true, "\(notFolders?.message ?? "")")

                let folders = Self.client(server, root.appendingPathComponent("folders"))
                _ = try await folders.sync()
                let first = #expect(throws: SyncError.self) { try folders.revert() }
                #expect(first?.code == .notStaged && first?.message.contains("no previous release") == true, "\(first?.message ?? "")")

                let unkept = Self.client(server, root.appendingPathComponent("unkept"), keeps: false)
                _ = try await unkept.sync()
                try await Self.publish(server, "two\n")
                _ = try await unkept.sync()
                let gone = #expect(throws: SyncError.self) { try unkept.revert() }
                #expect(gone?.message.contains("keepsPreviousRelease") == true, "\(gone?.message ?? "")")
                #expect(Self.current(root.appendingPathComponent("unkept")) == "two\n")

                // Reverted once, a second revert has nothing to go back to.
                _ = try await folders.sync()
                _ = try folders.revert()
                #expect(throws: SyncError.self) { try folders.revert() }
            }
        }
    }

    @Test(
        "a state whose previous release names no tree of it (edited: empty, a folder planted, `..`, the current tree) is refused before the switch, and the folder stays whole and syncs",
        arguments: ["", "x", "../x", "current"]
    )
    func previousEdited(tree: String) async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server, "one\n")
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                try await Self.publish(server, "two\n")
                let two = try #require(try await client.sync().release)
                var state = SyncState.load(from: client.folder)
                let trees = ReleaseTrees(folder: try client.folder.open())
                state.previous?.tree = tree == "current" ? try #require(try trees.current()) : tree
                try state.save(in: client.folder)
                try FileManager.default.createDirectory(
                    at: folder.appendingPathComponent(ReleaseTrees.treePath("x")),
                    withIntermediateDirectories: true
                )

                let refused = #expect(throws: SyncError.self) { try client.revert() }
                #expect(refused?.message.contains("release folder") == true, "\(refused?.message ?? "")")
                #expect(Self.current(folder) == "two\n" && client.currentRelease == two)
                #expect(client.folder.read(.journal) == nil, "no journal the switch cannot carry out")
                #expect(try await client.sync().release == two)
            }
        }
    }

    @Test("a revert to a release of the channel followed before stays: the sync on the new channel does not take the reverted release again")
    func acrossChannels() async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server, "one\n")
            try await withTemporaryDirectory { folder in
                var beta = Self.client(server, folder).configuration
                beta.channel = "beta"
                let one = try #require(try await Self.client(server, folder).sync().release)
                let promoted = try await RolloutFleetTests.send(server, "POST", "/v1/channels/beta/promote", json: PromoteRequest(release: one.id))
                #expect(promoted.status == 200, "\(promoted.bodyText)")
                let betaClient = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: beta)
                #expect(try await betaClient.sync().release?.channel == "beta")
                // The app moves to stable, whose new release it finds broken.
                try await Self.publish(server, "two\n")
                let client = Self.client(server, folder)
                let two = try #require(try await client.sync().release)
                #expect(try client.revert().channel == "beta")
                #expect(Self.current(folder) == "one\n")
                let stay = try await client.sync()
                #expect(stay.release?.id == one.id && stay.release?.id != two.id)
                #expect(Self.current(folder) == "one\n")
            }
        }
    }

    @Test("a revert to a release whose document only a key the app no longer trusts signed is refused (a leaked key dropped by an app update)")
    func revokedKey() async throws {
        let (old, new) = (Curve25519.Signing.PrivateKey(), Curve25519.Signing.PrivateKey())
        try await withTemporaryDirectory { root in
            let (data, folder) = (root.appendingPathComponent("data"), root.appendingPathComponent("app"))
            var configuration = SeedTests.configuration(data: data)
            configuration.channels = ChannelSigner(keys: [old, new])
            try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                func client(trusting keys: [Curve25519.Signing.PrivateKey]) -> DepotClient {
                    var configuration = DepotClient.Configuration(trustedKeys: keys.map { $0.publicKey.rawRepresentation.base64EncodedString() })
                    configuration.layout = .releaseFolders
                    configuration.keepsPreviousRelease = true
                    return DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                }
                try await Self.publish(server, "one\n")
                let one = try #require(try await client(trusting: [old]).sync().release)
                // The next version of the app adds the new key; the one after drops the old one.
                try await Self.publish(server, "two\n")
                _ = try await client(trusting: [old, new]).sync()
                let refused = #expect(throws: SyncError.self) { try client(trusting: [new]).revert() }
                #expect(refused?.code == .untrusted, "\(refused?.message ?? "")")
                #expect(Self.current(folder) == "two\n")
                #expect(try client(trusting: [old, new]).revert().id == one.id)
            }
        }
    }

    @Test(
        "a revert crashed at each step leaves release 1 or 2 whole behind `current`, and the next revert or sync finishes it, the failed report queued once",
        arguments: [SwitchStep.foldersStaged, .journalWritten, .linked, .stateSaved, .journalRemoved]
    )
    func crash(at step: SwitchStep) async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server, "one\n")
            try await withTemporaryDirectory { root in
                let folders = ["revert", "sync"].map { root.appendingPathComponent($0) }
                for folder in folders { _ = try await Self.client(server, folder).sync() }
                try await Self.publish(server, "two\n")
                var two: HeldRelease?
                for folder in folders { two = try await Self.client(server, folder).sync().release }
                for (index, folder) in folders.enumerated() {
                    let client = Self.client(server, folder)
                    var crashing = client
                    crashing.switchFault = { if $0 == step { throw Crash() } }
                    #expect(throws: Crash.self) { try crashing.revert() }
                    #expect(["one\n", "two\n"].contains(Self.current(folder)), "\(String(describing: Self.current(folder)))")
                    let committed = step != .foldersStaged
                    if index == 0 {
                        #expect(try client.revert().number == two!.number - 1)
                        #expect(Self.current(folder) == "one\n")
                        let queued = try Self.queued(folder)
                        #expect(queued.filter { $0.kind == "failed" }.count == 1, "\(queued)")
                    } else {
                        let report = try await client.sync()
                        #expect(report.release?.number == (committed ? two!.number - 1 : two!.number))
                        #expect(Self.current(folder) == (committed ? "one\n" : "two\n"))
                        #expect(try Self.queued(folder).isEmpty, "the failed report is sent")
                    }
                }
            }
        }
    }
}
