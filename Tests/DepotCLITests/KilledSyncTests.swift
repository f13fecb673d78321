import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// A `depot sync` killed mid-way, as a process is (its subject: the kill): of small files by pack
/// (`PackSyncTests`), only what was not verified is fetched again; of a file rebuilt from blocks
/// (`DeltaReachTests`), the old copy or the new file is left, and the next sync finishes.
@Suite("Syncs killed mid-way")
struct KilledSyncTests {
    typealias Packs = PackSyncTests
    typealias Deltas = DeltaReachTests

    @Test("a cold sync fetches small files by pack; killed, the next sync fetches none of what was verified again")
    func killedPackSync() async throws {
        try await DepotProcess.withServer { root, server in
            try Packs.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let whole = try await InProcessCLI.run(["sync", "--server", server, "--dir", "whole", "--json"], token: nil, in: root)
            let wholeReport = try JSONDecoder().decode(SyncReport.self, from: Data(whole.output.utf8))
            #expect(wholeReport.files.filter { $0.outcome == .packed }.count == Packs.files)

            let port = Int(server.split(separator: ":").last!)!
            try await FaultyRelay.with(upstreamPort: port) { relay in
                // Slow packs: the kill lands while some are verified and staged, others on the way.
                relay.slowDownBlobResponses(by: .milliseconds(400))
                let mirror = "http://127.0.0.1:\(relay.port)"
                let staging = root.appendingPathComponent("cold/.depot/staging")
                func verifiedFiles() -> Set<String> {
                    Set(((try? Fixture.files(below: staging)) ?? []).filter { !$0.contains(".") }.map { String($0.split(separator: "/").last!) })
                }
                // Killed once 100 files are verified and staged, however long that takes. No
                // minimum rate: the relay runs in the test process, which a loaded machine can
                // starve for longer than a rate window.
                try await DepotProcess.with(["sync", "--server", mirror, "--dir", "cold", "--minimum-rate", "0"], in: root) { sync in
                    // Hang guard: slowest seen 25.1 s under two busy loops (the whole test).
                    _ = try await poll(every: .milliseconds(5), for: .seconds(600)) { verifiedFiles().count >= 100 || !sync.isRunning ? true : nil }
                    sync.kill()
                    _ = try await sync.waitForExit()
                }
                let verified = verifiedFiles()
                #expect(verified.count >= 100, "the kill came after files were verified and staged")
                #expect(verified.count < Packs.files, "and before all were")

                relay.slowDownBlobResponses(by: nil)
                let again = try await InProcessCLI.run(
                    ["sync", "--server", mirror, "--dir", "cold", "--json", "--minimum-rate", "0"],
                    token: nil,
                    in: root
                )
                #expect(again.status == 0, "\(again.errors)")
                let report = try JSONDecoder().decode(SyncReport.self, from: Data(again.output.utf8))
                let shas = try Dictionary(
                    uniqueKeysWithValues: (0..<Packs.files).map {
                        ("\($0 / 100)/\($0).bin", Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("site/\($0 / 100)/\($0).bin"))))
                    }
                )
                let refetched = report.files.filter { verified.contains(shas[$0.path] ?? "") && $0.bytesTransferred > 0 }
                #expect(refetched.isEmpty, "fetched again though verified: \(refetched.prefix(3).map(\.path))")
                #expect(report.files.filter { $0.outcome == .staged }.count == verified.count)
                for index in [0, 399, 799] {
                    let path = "\(index / 100)/\(index).bin"
                    #expect(
                        try Data(contentsOf: root.appendingPathComponent("cold/\(path)"))
                            == Data(contentsOf: root.appendingPathComponent("site/\(path)"))
                    )
                }
            }
        }
    }

    @Test("killing a sync that rebuilds from blocks at random points leaves the old copy or the new file, and the next sync finishes")
    func killedBlockSync() async throws {
        try await DepotProcess.withServer(environment: Deltas.environment) { root, server in
            try await Deltas.publish(1, root: root, server: server)
            _ = try await Deltas.sync(server, root: root)
            let edited = Deltas.editedByTheApp(try Deltas.synced(root))
            try edited.write(to: root.appendingPathComponent("out/table.db"))
            try await Deltas.publish(2, root: root, server: server)
            let template = root.appendingPathComponent("out")
            /// A folder holding release 1 with the app's copy, as `out` does.
            func fresh(_ name: String) throws -> URL {
                let folder = root.appendingPathComponent(name)
                try FileManager.default.copyItem(at: template, to: folder)
                return folder
            }
            let whole = try await ContinuousClock().measure {
                _ = try fresh("timing")
                #expect(try await InProcessCLI.run(["sync", "--server", server, "--dir", "timing"], token: nil, in: root).status == 0)
            }
            let latest = max(300, Int(whole / .milliseconds(1) * 1.5))
            var generator = SystemRandomNumberGenerator()
            for round in 0..<8 {
                let folder = try fresh("round-\(round)")
                try await DepotProcess.with(["sync", "--server", server, "--dir", folder.lastPathComponent], in: root) { sync in
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...latest, using: &generator)))
                    sync.kill()
                    _ = try await sync.waitForExit()
                    let client = DepotClient(server: URL(string: server)!, directory: folder)
                    let (held, bytes) = try client.withCurrentRelease { held in
                        (held?.number, try Data(contentsOf: folder.appendingPathComponent("table.db")))
                    }
                    #expect(
                        held == 1 && bytes == edited || held == 2 && bytes == Deltas.table(version: 2),
                        "round \(round): release \(String(describing: held))"
                    )
                    let again = try await InProcessCLI.run(["sync", "--server", server, "--dir", folder.lastPathComponent], token: nil, in: root)
                    #expect(again.status == 0, "\(again.errors)")
                    #expect(try Data(contentsOf: folder.appendingPathComponent("table.db")) == Deltas.table(version: 2), "round \(round)")
                }
            }
        }
    }
}
