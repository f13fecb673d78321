import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// The origin's disk lost while a fleet follows it through a static mirror (`depot mirror`
/// behind the shipped nginx configuration): the origin rebuilt with `depot import` from that
/// mirror, or restored from `depot backup`, publishes release N+1, and every client reaches it
/// through the mirror, with no step of its own and none refusing it.
@Suite("Disaster drill through a mirror")
struct MirrorDisasterDrillTests {
    typealias Stage = StaticExportTests.Stage
    static let clients = 20

    /// How the origin comes back.
    enum Recovery: String, CaseIterable, Sendable {
        case importFromMirror = "depot import from the mirror's URL"
        case restoreFromBackup = "depot restore from a backup taken before the last release"
    }

    @Test("the origin's data folder deleted, then rebuilt: release N+1 reaches 20 clients of the mirror", arguments: Recovery.allCases)
    func drill(_ recovery: Recovery) async throws {
        try await Stage.with { stage in
            for version in 1...3 { try stage.writeTree("v\(version)", count: 10, variant: version, edit: UInt8(version)) }
            @Sendable func mirror(from origin: String) async throws {
                let mirrored = try await DepotCLI.run(
                    ["mirror", "--from", origin, "--to", "mirror", "--trusted-key", stage.publicKey],
                    token: nil,
                    in: stage.root
                )
                #expect(mirrored.status == 0, "\(mirrored.errors)")
            }
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                if recovery == .restoreFromBackup {
                    let backup = try await DepotCLI.run(["backup", "--to", "backup", "--data", "data"], token: nil, in: stage.root)
                    #expect(backup.status == 0, "\(backup.errors)")
                }
                try await stage.publish("v2", to: origin)
                try await mirror(from: origin)
                // A move the mirror never sees, taken by a client of the origin itself: its
                // serial is above the mirror's, and the rebuilt origin must sign above it.
                let rollback = try await DepotCLI.run(["release", "rollback", "--server", origin], in: stage.root)
                #expect(rollback.status == 0, "\(rollback.errors)")
                #expect(try await stage.sync("direct", from: origin).release?.number == 1)
            }
            try await Nginx.serving(export: stage.root.appendingPathComponent("mirror")) { nginx in
                var held: Set<String> = []
                for client in 0..<Self.clients {
                    let report = try await stage.sync("client-\(client)", from: nginx.url(""))
                    #expect(report.release?.number == 2)
                    held.insert(report.release?.id ?? "")
                }

                // The disk is lost; the origin comes back from the mirror, or from the backup.
                try FileManager.default.removeItem(at: stage.root.appendingPathComponent("data"))
                let rebuilt =
                    switch recovery {
                    case .importFromMirror:
                        try await DepotCLI.run(
                            ["import", "--from", nginx.url(""), "--data", "data", "--trusted-key", stage.publicKey, "--channel", "stable"],
                            token: nil,
                            in: stage.root
                        )
                    case .restoreFromBackup:
                        try await DepotCLI.run(["restore", "--from", "backup", "--data", "data"], token: nil, in: stage.root)
                    }
                #expect(rebuilt.status == 0 && rebuilt.output.contains("serials raised by 1000"), "\(rebuilt.output) \(rebuilt.errors)")

                try await stage.serving { origin in
                    try await stage.publish("v3", to: origin)
                    try await mirror(from: origin)
                    #expect(try stage.holdsTree("direct", "v1"))
                    _ = try await stage.sync("direct", from: origin)
                    #expect(try stage.holdsTree("direct", "v3"), "the client of the origin takes N+1: no replay")
                }
                for client in 0..<Self.clients {
                    let report = try await stage.sync("client-\(client)", from: nginx.url(""))
                    // N+1, numbered past the copy's newest by the release margin (100), so that no
                    // number a lost release had is given again: 103 rebuilt from the mirror (which
                    // held release 2), 102 restored from a backup that held release 1 only.
                    #expect(report.release?.number == (recovery == .importFromMirror ? 103 : 102))
                    #expect(report.updatedCount > 0 && !held.contains(report.release?.id ?? ""))
                    #expect(try stage.holdsTree("client-\(client)", "v3"), "client \(client) holds release N+1")
                }
            }
        }
    }
}
