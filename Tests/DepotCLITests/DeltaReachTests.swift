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
    /// Block indexes from 64 KiB, so that a 2 MB file has one.
    static let environment = ["DEPOT_DELTAS_BLOCK_INDEX_MINIMUM_BYTES": "65536"]

    /// Version `version` of a 2 MB table of 100-byte rows, as a database's pages hold them: each
    /// release rewrites the price of 100 rows (0.5%) in place.
    static func table(version: Int) -> Data {
        var random = Generator(seed: 7)
        let words = (0..<400).map { _ in String((0..<(3 + random.next() % 6)).map { _ in Character(UnicodeScalar(97 + UInt8(random.next() % 26))) }) }
        var rows = (0..<20_000).map { row in
            let name = (0..<8).map { _ in words[random.next() % words.count] }.joined(separator: " ")
            return "\(String(format: "%08d", row))|\(name.prefix(70).padding(toLength: 70, withPad: ".", startingAt: 0))|"
        }
        var prices = (0..<20_000).map { _ in random.next() % 100_000 }
        for release in stride(from: 2, through: version, by: 1) {
            var edits = Generator(seed: UInt64(release) * 1_000)
            for _ in 0..<100 { prices[edits.next() % prices.count] = edits.next() % 100_000 }
        }
        for row in rows.indices { rows[row] += String(format: "%010d", prices[row]) + "|" + String(repeating: " ", count: 8) + "\n" }
        return Data(rows.joined().utf8)
    }

    /// A small deterministic generator (SplitMix64).
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
    }

    static func publish(_ version: Int, root: URL, server: String) async throws {
        try root.write(table(version: version), to: "table.db")
        try await InProcessCLI.publish(["table.db"], to: server, in: root)
    }

    /// `depot sync --json` into `out` from `server`: the file's outcome and the bytes it cost.
    /// With no minimum rate: the server and the relays these tests put in front run in the test
    /// process, which a loaded machine can starve for longer than a rate window, and the rate is
    /// not their subject (`TransferRateTests` judge it on a clock of their own).
    static func sync(_ server: String, root: URL) async throws -> (outcome: String, bytes: Int) {
        let arguments = ["sync", "--server", server, "--dir", "out", "--json", "--minimum-rate", "0"]
        let result = try await InProcessCLI.run(arguments, token: nil, in: root)
        #expect(result.status == 0, "\(result.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let file = (report?["files"] as? [[String: Any]])?.first { $0["path"] as? String == "table.db" }
        return (file?["outcome"] as? String ?? "none", file?["bytesTransferred"] as? Int ?? -1)
    }

    static func synced(_ root: URL) throws -> Data { try Data(contentsOf: root.appendingPathComponent("out/table.db")) }

    /// What the whole file costs: its gzip size.
    static func gzipSize(_ version: Int) -> Int {
        (try? Fixture.gzip(table(version: version)).count) ?? 0
    }

    /// The app writes to its copy: 200 rows' prices (1%), in place.
    static func editedByTheApp(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        var random = Generator(seed: 99)
        for _ in 0..<200 {
            let row = random.next() % 20_000
            for (offset, byte) in "7777777777".utf8.enumerated() { bytes[row * 100 + 80 + offset] = byte }
        }
        return Data(bytes)
    }

    @Test("a client 10 releases behind gets a patch the server makes on its request, not the whole file")
    func tenReleasesBehind() async throws {
        try await InProcessCLI.withServer(environment: Self.environment) { root, server in
            try await Self.publish(1, root: root, server: server)
            #expect(try await Self.sync(server, root: root).outcome == "gzip")
            for version in 2...11 { try await Self.publish(version, root: root, server: server) }
            let (outcome, bytes) = try await Self.sync(server, root: root)
            #expect(outcome == "delta")
            #expect(bytes * 50 < Self.gzipSize(11), "\(bytes) bytes")
            #expect(try Self.synced(root) == Self.table(version: 11))
        }
    }

    /// Publishes version 1 and syncs it, lets `change` alter the synced copy, publishes version
    /// 2, and syncs again by `second`; checks the copy is version 2 after, and returns the second
    /// sync's outcome and bytes.
    static func syncAfterChange(
        root: URL,
        server: String,
        change: (Data) -> Data,
        second: (String) async throws -> (outcome: String, bytes: Int)
    ) async throws -> (outcome: String, bytes: Int) {
        try await publish(1, root: root, server: server)
        _ = try await sync(server, root: root)
        try change(try synced(root)).write(to: root.appendingPathComponent("out/table.db"))
        try await publish(2, root: root, server: server)
        let result = try await second(server)
        #expect(try synced(root) == table(version: 2))
        return result
    }

    @Test("a copy the app wrote to is rebuilt from blocks: those of the version held, then its patch")
    func copyChangedByTheApp() async throws {
        try await InProcessCLI.withServer(environment: Self.environment) { root, server in
            let (outcome, bytes) = try await Self.syncAfterChange(root: root, server: server, change: Self.editedByTheApp) {
                try await Self.sync($0, root: root)
            }
            #expect(outcome == "blocks")
            #expect(bytes * 4 < Self.gzipSize(2), "\(bytes) bytes")
        }
    }

    @Test("a damaged copy is repaired from blocks, whatever its damage shifted")
    func damagedCopy() async throws {
        try await InProcessCLI.withServer(environment: Self.environment) { root, server in
            let damage: (Data) -> Data = { copy in
                var damaged = copy
                damaged.replaceSubrange(500_000..<504_096, with: Data(count: 4_096))
                damaged.removeSubrange(1_200_000..<1_200_777)
                damaged.insert(contentsOf: Data("garbage".utf8), at: 1_500_000)
                return damaged
            }
            let (outcome, bytes) = try await Self.syncAfterChange(root: root, server: server, change: damage) {
                try await Self.sync($0, root: root)
            }
            #expect(outcome == "blocks")
            #expect(bytes * 10 < Self.gzipSize(2), "\(bytes) bytes")
            // The summary line says how each updated file arrived.
            try Self.editedByTheApp(try Self.synced(root)).write(to: root.appendingPathComponent("out/table.db"))
            try await Self.publish(3, root: root, server: server)
            let line = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out", "--minimum-rate", "0"], token: nil, in: root)
            #expect(line.output.contains("1 updated, 0 unchanged: ") && line.output.contains("; 1 from blocks"), "\(line.output)")
        }
    }

    @Test("a mirror that alters a block is refused, and the file is fetched whole")
    func tamperedBlocks() async throws {
        try await InProcessCLI.withServer(environment: Self.environment) { root, server, app in
            let (outcome, bytes) = try await Self.syncAfterChange(root: root, server: server, change: Self.editedByTheApp) { _ in
                try await InProcessRelay.with(in: app) { relay in
                    relay.tamper(".zblocks")
                    return try await Self.sync(relay.url(""), root: root)
                }
            }
            #expect(outcome == "gzip")
            // The blocks fetched before the refusal are counted too.
            #expect(bytes > Self.gzipSize(2), "\(bytes) bytes")
        }
    }

    @Test("a proxy that refuses several ranges a request: one range a request, the bytes still reported")
    func proxyRefusingMultipleRanges() async throws {
        try await InProcessCLI.withServer(environment: Self.environment) { root, server, app in
            let damage: (Data) -> Data = { copy in
                var damaged = copy
                for start in stride(from: 100_000, to: 2_000_000, by: 150_000) {
                    damaged.replaceSubrange(start..<start + 3_000, with: Data(count: 3_000))
                }
                return damaged
            }
            let (outcome, bytes) = try await Self.syncAfterChange(root: root, server: server, change: damage) { server in
                try await InProcessRelay.with(in: app) { relay in
                    relay.dropMultipleRanges()
                    return try await Self.sync(relay.url(""), root: root)
                }
            }
            #expect(outcome == "blocks")
            #expect(bytes * 5 < Self.gzipSize(2), "\(bytes) bytes")
        }
    }
}
