import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 57, cause 8: the adversarial pass on the in-place channel switch (defect 28's second
/// half), as a user and a local process would try it: the stable-only path `old/stable.txt`
/// that the switch to beta removes is edited, swapped for a link, or its folder for a link.
@Suite("Channel switch attacks")
struct ChannelSwitchAttackTests {
    enum Plant: String, Sendable, CaseIterable {
        /// The user edited the file Depot placed.
        case edited
        /// The file is a link to a file outside the folder.
        case fileLink
        /// Its folder is a link to a folder outside.
        case folderLink
    }

    /// Where the power cut falls in the switch to beta; `partly` removes one of stable's files
    /// by hand after a cut at `journalWritten`: a cut in the middle of the removals.
    enum Cut: String, Sendable, CaseIterable {
        case journalWritten, partly, removalsDone, stateSaved
        var step: SwitchStep {
            switch self {
            case .journalWritten, .partly: .journalWritten
            case .removalsDone: .removalsDone
            case .stateSaved: .stateSaved
            }
        }
    }

    struct Cutoff: Error {}

    @Test("a power cut in the switch to beta, then a sync: the folder holds beta's release exactly", arguments: Cut.allCases)
    func powerCut(_ cut: Cut) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("shared.txt", ChannelSwitchTests.shared)])
            let promoted = try await RolloutFleetTests.send(server, "POST", "/v1/channels/beta/promote", json: PromoteRequest(release: "1"))
            #expect(promoted.status == 200, "\(promoted.bodyText)")
            let stableOnly = ["old/a.txt", "old/b.txt", "c.txt"]
            try await server.publish(stableOnly.map { ($0, Data("stable \($0)\n".utf8)) })
            try await withTemporaryDirectory { folder in
                let client = { (channel: String) in
                    DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: DepotClient.Configuration(channel: channel))
                }
                let stable = try await client("stable").sync()
                let held = try SwitchCrashTests.files(folder)
                #expect(
                    stable.release?.channel == "stable" && stableOnly.allSatisfy { held[$0] != nil },
                    "\(held) \(String(describing: stable.release))"
                )
                var cutting = client("beta")
                cutting.switchFault = { step in if step == cut.step { throw Cutoff() } }
                await #expect(throws: (any Error).self) { try await cutting.sync() }
                if cut == .partly { try FileManager.default.removeItem(at: folder.appendingPathComponent("old/a.txt")) }

                let beta = try await client("beta").sync()
                #expect(beta.release?.channel == "beta" && beta.release?.number == 1, "\(String(describing: beta.release))")
                #expect(try SwitchCrashTests.files(folder) == ["shared.txt": String(decoding: ChannelSwitchTests.shared, as: UTF8.self)])
                #expect(try client("beta").withCurrentRelease { $0?.channel } == "beta")
            }
        }
    }

    @Test("stable, a path of it planted, then beta", arguments: Plant.allCases)
    func planted(_ plant: Plant) async throws {
        try await InProcessServer.withPublishing { server in
            try await ChannelSwitchTests.publish(server)
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("app")
                let client = { (channel: String) in
                    DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: DepotClient.Configuration(channel: channel))
                }
                #expect(try await client("stable").sync().release?.number == 2)
                let path = folder.appendingPathComponent("old/stable.txt")
                let outside = root.appendingPathComponent("outside")
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                let precious = Data("outside\n".utf8)
                try precious.write(to: outside.appendingPathComponent("stable.txt"))
                switch plant {
                case .edited:
                    try Data("my edit\n".utf8).write(to: path)
                case .fileLink:
                    try FileManager.default.removeItem(at: path)
                    try FileManager.default.createSymbolicLink(at: path, withDestinationURL: outside.appendingPathComponent("stable.txt"))
                case .folderLink:
                    try FileManager.default.removeItem(at: folder.appendingPathComponent("old"))
                    try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("old"), withDestinationURL: outside)
                }

                var failure: SyncError?
                var beta: SyncReport?
                do { beta = try await client("beta").sync() } catch let error as SyncError { failure = error }
                let said = "\(String(describing: beta?.files)) \(String(describing: failure))"
                #expect(
                    FileManager.default.contents(atPath: outside.appendingPathComponent("stable.txt").path) == precious,
                    "nothing outside is touched: \(said)"
                )
                switch plant {
                case .edited, .fileLink:
                    // docs/app-developers.md: what the app (or user) writes to a file stays until a release
                    // changes it; a switch that drops the path removes it, a link as a link.
                    #expect(beta?.release?.channel == "beta" && beta?.removedCount == 1, "\(said)")
                    #expect((try? FileManager.default.attributesOfItem(atPath: path.path)) == nil, "removed, not followed: \(said)")
                case .folderLink:
                    // Nothing is removed through a link: the switch is refused, the link kept.
                    #expect(failure?.message.contains("old is not a folder or file Depot made") == true && beta == nil, "\(said)")
                    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("old").path)) == outside.path)
                }
            }
        }
    }
}
