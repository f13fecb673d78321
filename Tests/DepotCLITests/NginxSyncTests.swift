import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// `depot sync` behind the shipped nginx site, in front of `depot serve`: a cold sync gets its
/// small files by pack (`PackSyncTests`), a changed copy is rebuilt from blocks
/// (`DeltaReachTests`). Their subject is nginx: a real one, on a socket.
@Suite("Syncs through the shipped nginx site")
struct NginxSyncTests {
    typealias Packs = PackSyncTests
    typealias Deltas = DeltaReachTests

    @Test("behind the shipped nginx site, a cold sync gets every small file by pack")
    func packsThroughNginx() async throws {
        try await DepotProcess.withServer { root, server in
            try Packs.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let port = Int(server.split(separator: ":").last!)!
            try await Nginx.with(depotPort: port) { nginx in
                for folder in ["first", "cached"] {
                    let sync = try await InProcessCLI.run(["sync", "--server", nginx.url(""), "--dir", folder, "--json"], token: nil, in: root)
                    #expect(sync.status == 0, "\(sync.errors)")
                    let report = try JSONDecoder().decode(SyncReport.self, from: Data(sync.output.utf8))
                    #expect(report.files.filter { $0.outcome == .packed }.count == Packs.files, "\(folder)")
                }
            }
            #expect(
                try Data(contentsOf: root.appendingPathComponent("cached/7/799.bin"))
                    == Data(contentsOf: root.appendingPathComponent("site/7/799.bin"))
            )
        }
    }

    @Test("through the shipped nginx site, a changed copy is rebuilt from blocks and its bytes reported")
    func blocksThroughNginx() async throws {
        try await DepotProcess.withServer(environment: Deltas.environment) { root, server in
            let (outcome, bytes) = try await Deltas.syncAfterChange(root: root, server: server, change: Deltas.editedByTheApp) { server in
                try await Nginx.with(depotPort: Int(server.split(separator: ":").last!)!) { nginx in try await Deltas.sync(nginx.url(""), root: root)
                }
            }
            #expect(outcome == "blocks")
            #expect(bytes * 4 < Deltas.gzipSize(2), "\(bytes) bytes")
        }
    }
}
