import DepotTestSupport
import Foundation
import Testing

/// What `depot import` and `depot mirror` may undo, and how long a source may hold them (issue 57,
/// defects 22 and 23): a mirror behind its origin (it never saw a rollback) is not preferred to
/// one that is not, and can be refused by the origin's last serial; a source that trickles bytes
/// is dropped at the minimum rate, as `depot sync` drops it.
@Suite("depot import: a source behind its origin, a source that trickles")
struct ImportBehindTests {
    typealias Drill = DisasterDrillTests

    /// An origin that published releases 1 and 2 and then rolled back to 1 (serial 3): `behind`
    /// is a mirror taken before the rollback (release 2, serial 2), `current` one taken after.
    static func withRolledBackOrigin(_ body: (URL, String) async throws -> Void) async throws {
        try await Drill.withKey { root, key, publicKey in
            try await Drill.serving("data", key: key, in: root) { server in
                for version in 1...2 { try await Drill.publish(version, server: server, in: root) }
                let behind = try await InProcessCLI.run(
                    ["mirror", "--from", server, "--to", "behind", "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                try #require(behind.status == 0, "\(behind.errors)")
                let back = try await InProcessCLI.run(["release", "rollback", "--server", server], in: root)
                try #require(back.status == 0, "\(back.errors)")
                let current = try await InProcessCLI.run(
                    ["mirror", "--from", server, "--to", "current", "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                try #require(current.status == 0, "\(current.errors)")
                #expect(behind.output.contains("Mirrored stable: release 2, serial 2"), "\(behind.output)")
                #expect(current.output.contains("Mirrored stable: release 1, serial 3"), "\(current.output)")
            }
            try await body(root, publicKey)
        }
    }

    @Test("several sources: each channel comes from the one with the highest serial, whatever their order")
    func highestSerialWins() async throws {
        try await Self.withRolledBackOrigin { root, publicKey in
            let imported = try await InProcessCLI.run(
                ["import", "--from", "behind", "--from", "current", "--data", "rebuilt", "--trusted-key", publicKey],
                token: nil,
                in: root
            )
            #expect(imported.status == 0, "\(imported.errors)")
            #expect(imported.output.contains("stable: release 1, document serial 3"), "\(imported.output)")
            #expect(imported.output.contains("A source may be behind its origin"), "\(imported.output)")
        }
    }

    @Test("--not-before-serial refuses a source behind the origin's last serial, in one line, with nothing made")
    func serialFloor() async throws {
        try await Self.withRolledBackOrigin { root, publicKey in
            let refused = try await InProcessCLI.run(
                ["import", "--from", "behind", "--data", "rebuilt", "--trusted-key", publicKey, "--not-before-serial", "stable=3"],
                token: nil,
                in: root
            )
            #expect(refused.status != 0)
            #expect(refused.errors.contains("stable is at serial 2 (release 2), below --not-before-serial stable=3"), "\(refused.errors)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("rebuilt").path))

            let unknown = try await InProcessCLI.run(
                ["import", "--from", "current", "--data", "rebuilt", "--trusted-key", publicKey, "--not-before-serial", "beta=1"],
                token: nil,
                in: root
            )
            #expect(unknown.status != 0 && unknown.errors.contains("the channel beta is not imported"), "\(unknown.errors)")

            let taken = try await InProcessCLI.run(
                ["import", "--from", "current", "--data", "rebuilt", "--trusted-key", publicKey, "--not-before-serial", "stable=3"],
                token: nil,
                in: root
            )
            #expect(taken.status == 0, "\(taken.errors)")
            #expect(taken.output.contains("stable: release 1, document serial 3"), "\(taken.output)")
        }
    }

    @Test(
        "a source that trickles below --minimum-rate fails the mirror and the import in one line, as a sync would",
        arguments: ["mirror", "import"]
    )
    func trickledSource(command: String) async throws {
        try await Drill.withKey { root, key, publicKey in
            try await InProcessCLI.withServer(environment: ["DEPOT_CHANNELS_SIGNING_KEY_FILE": key.path]) { _, server, app in
                try await Drill.publish(1, server: server, in: root)
                try await InProcessRelay.with(in: app) { relay in
                    // About 10 bytes a second, against a minimum of 1,000 over 1 s: far below it
                    // on any machine, so the outcome does not depend on the wall clock.
                    relay.trickle("/channels/", bytes: 1, every: .milliseconds(100))
                    let target = command == "mirror" ? ["--to", "tree"] : ["--data", "rebuilt", "--channel", "stable"]
                    let arguments =
                        [
                            command, "--from", relay.url(""), "--trusted-key", publicKey, "--minimum-rate", "1000",
                            "--rate-window", "1s",
                        ]
                        + target
                    // The hang guard: before, each request waited up to 600 s.
                    // Hang guard: slowest seen 6.1 s under two busy loops (the whole test).
                    let (status, log) = try await InProcessCLI.log(arguments, in: root)
                    #expect(status != 0)
                    #expect(log.contains("/channels/stable arrived slower than 1000 bytes/s over 1 s"), "\(log)")
                }
            }
        }
    }
}
