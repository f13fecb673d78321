import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Every client gets a delta (issue 28), with `depot sync` against the server, both in process: a
/// client many releases behind, a client whose copy changed, a mirror that tampers with blocks,
/// and a proxy that refuses several ranges in one request (through the shipped nginx site and a
/// sync killed mid-way: the suites "Syncs through the shipped nginx site" and "Syncs killed
/// mid-way").
@Suite("Deltas for every client")
struct DeltaReachTests {
    @Test("a client 10 releases behind gets a patch the server makes on its request, not the whole file")
    func tenReleasesBehind() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server in
            try await DeltaTable.publish(1, root: root, server: server)
            #expect(try await DeltaTable.sync(server, root: root).outcome == "gzip")
            for version in 2...11 { try await DeltaTable.publish(version, root: root, server: server) }
            let (outcome, bytes) = try await DeltaTable.sync(server, root: root)
            #expect(outcome == "delta")
            #expect(bytes * 50 < DeltaTable.gzipSize(11), "\(bytes) bytes")
            #expect(try DeltaTable.synced(root) == DeltaTable.table(version: 11))
        }
    }

    @Test("the installs a rollback moves back take a patch from the release they held to the older one, not the whole file")
    func rollbackTakesAPatch() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server in
            // Release 2 lists patches (from 1): a file that lists none was never patched to, and
            // the client rebuilds it from blocks instead.
            for version in 1...3 {
                try await DeltaTable.publish(version, root: root, server: server)
                _ = try await DeltaTable.sync(server, root: root)
            }
            let rollback = try await InProcessCLI.run(["release", "rollback", "--server", server], token: InProcessCLI.token, in: root)
            #expect(rollback.status == 0, "\(rollback.errors)")
            let (outcome, bytes) = try await DeltaTable.sync(server, root: root)
            #expect(outcome == "delta")
            #expect(bytes * 50 < DeltaTable.gzipSize(2), "\(bytes) bytes")
            #expect(try DeltaTable.synced(root) == DeltaTable.table(version: 2))
        }
    }

    @Test("a copy the app wrote to is rebuilt from blocks: those of the version held, then its patch")
    func copyChangedByTheApp() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server in
            let (outcome, bytes) = try await DeltaTable.syncAfterChange(root: root, server: server, change: DeltaTable.editedByTheApp) {
                try await DeltaTable.sync($0, root: root)
            }
            #expect(outcome == "blocks")
            #expect(bytes * 4 < DeltaTable.gzipSize(2), "\(bytes) bytes")
        }
    }

    @Test("a damaged copy is repaired from blocks, whatever its damage shifted")
    func damagedCopy() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server in
            let damage: (Data) -> Data = { copy in
                var damaged = copy
                damaged.replaceSubrange(500_000..<504_096, with: Data(count: 4_096))
                damaged.removeSubrange(1_200_000..<1_200_777)
                damaged.insert(contentsOf: Data("garbage".utf8), at: 1_500_000)
                return damaged
            }
            let (outcome, bytes) = try await DeltaTable.syncAfterChange(root: root, server: server, change: damage) {
                try await DeltaTable.sync($0, root: root)
            }
            #expect(outcome == "blocks")
            #expect(bytes * 10 < DeltaTable.gzipSize(2), "\(bytes) bytes")
            // The summary line says how each updated file arrived.
            try DeltaTable.editedByTheApp(try DeltaTable.synced(root)).write(to: root.appendingPathComponent("out/table.db"))
            try await DeltaTable.publish(3, root: root, server: server)
            let line = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out", "--minimum-rate", "0"], token: nil, in: root)
            #expect(line.output.contains("1 updated, 0 unchanged: ") && line.output.contains("; 1 from blocks"), "\(line.output)")
        }
    }

    @Test("a mirror that alters a block is refused, and the file is fetched whole")
    func tamperedBlocks() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server, app in
            let (outcome, bytes) = try await DeltaTable.syncAfterChange(root: root, server: server, change: DeltaTable.editedByTheApp) { _ in
                try await InProcessRelay.with(in: app) { relay in
                    relay.tamper(".zblocks")
                    return try await DeltaTable.sync(relay.url(""), root: root)
                }
            }
            #expect(outcome == "gzip")
            // The blocks fetched before the refusal are counted too.
            #expect(bytes > DeltaTable.gzipSize(2), "\(bytes) bytes")
        }
    }

    @Test("a proxy that refuses several ranges a request: one range a request, the bytes still reported")
    func proxyRefusingMultipleRanges() async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server, app in
            let damage: (Data) -> Data = { copy in
                var damaged = copy
                for start in stride(from: 100_000, to: 2_000_000, by: 150_000) {
                    damaged.replaceSubrange(start..<start + 3_000, with: Data(count: 3_000))
                }
                return damaged
            }
            let (outcome, bytes) = try await DeltaTable.syncAfterChange(root: root, server: server, change: damage) { server in
                try await InProcessRelay.with(in: app) { relay in
                    relay.dropMultipleRanges()
                    return try await DeltaTable.sync(relay.url(""), root: root)
                }
            }
            #expect(outcome == "blocks")
            #expect(bytes * 5 < DeltaTable.gzipSize(2), "\(bytes) bytes")
        }
    }
}
