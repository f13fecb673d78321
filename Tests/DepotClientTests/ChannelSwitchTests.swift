import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 57, defect 28: a folder switched from one channel to another ends up holding the new
/// channel's release exactly: what Depot placed for the old one and the new lacks is removed,
/// by the same rule as a release that drops a path on one channel (``ReleasePlan``); a file the
/// user put there stays.
@Suite("Channel switch")
struct ChannelSwitchTests {
    static let shared = Data("in both channels\n".utf8)
    static let stableOnly = Data("only stable has this\n".utf8)

    /// Beta on release 1 (`shared.txt`), stable on release 2 (`shared.txt` and `old/stable.txt`).
    static func publish(_ server: some TestServer) async throws {
        try await server.publish([("shared.txt", Self.shared)])
        let promoted = try await RolloutFleetTests.send(server, "POST", "/v1/channels/beta/promote", json: PromoteRequest(release: "1"))
        #expect(promoted.status == 200, "\(promoted.bodyText)")
        try await server.publish([("old/stable.txt", Self.stableOnly)])
    }

    @Test(
        "defect 28: stable, then beta: the stable-only file Depot placed is removed, durably in the switch; the shared one is not fetched again; the user's file stays",
        arguments: [FolderLayout.inPlace, .releaseFolders]
    )
    func stableToBeta(layout: FolderLayout) async throws {
        try await InProcessServer.withPublishing { server in
            try await Self.publish(server)
            try await withTemporaryDirectory { folder in
                let client = { (channel: String) in
                    var configuration = DepotClient.Configuration(channel: channel)
                    configuration.layout = layout
                    return DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                }
                let stable = try await client("stable").sync()
                #expect(stable.release?.number == 2)
                let content = try #require(try client("stable").openCurrentRelease())
                let root = content.directory
                content.close()
                #expect(SyncTests.contents(root, "old/stable.txt") == Self.stableOnly)
                // In place, the user's own file in the folder the app reads: Depot never placed it.
                if layout == .inPlace { try Data("mine\n".utf8).write(to: root.appendingPathComponent("old/mine.txt")) }

                let beta = try await client("beta").sync()
                #expect(beta.release?.number == 1 && beta.release?.channel == "beta")
                let held = try #require(try client("beta").openCurrentRelease())
                defer { held.close() }
                #expect(SyncTests.contents(held.directory, "shared.txt") == Self.shared)
                #expect(SyncTests.contents(held.directory, "old/stable.txt") == nil, "stable's file that beta lacks is gone")
                if layout == .inPlace {
                    #expect(beta.files.map(\.path) == ["old/stable.txt"] && beta.removedCount == 1, "\(beta.files)")
                    #expect(beta.unchangedCount == 1, "shared.txt, the same in both, is not fetched again")
                    #expect(SyncTests.contents(held.directory, "old/mine.txt") == Data("mine\n".utf8), "the user's file stays")
                } else {
                    #expect(held.directory != root, "beta's release has a tree of its own")
                }
            }
        }
    }
}
