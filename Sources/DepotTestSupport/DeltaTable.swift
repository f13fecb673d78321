import DepotTestFixtures
import Foundation
import Testing

/// A 2 MB table of 100-byte rows, as a database's pages hold them, published and synced by
/// `depot sync` in process: what the delta suites ("Deltas for every client", "Syncs through the
/// shipped nginx site", "Syncs killed mid-way") publish and sync.
package enum DeltaTable {
    /// Block indexes from 64 KiB, so that a 2 MB file has one.
    package static let environment = ["DEPOT_DELTAS_BLOCK_INDEX_MINIMUM_BYTES": "65536"]

    /// Version `version` of a 2 MB table of 100-byte rows, as a database's pages hold them: each
    /// release rewrites the price of 100 rows (0.5%) in place.
    package static func table(version: Int) -> Data {
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
    package struct Generator {
        var state: UInt64
        package init(seed: UInt64) { state = seed }
        package mutating func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
    }

    package static func publish(_ version: Int, root: URL, server: String) async throws {
        try root.write(table(version: version), to: "table.db")
        try await InProcessCLI.publish(["table.db"], to: server, in: root)
    }

    /// `depot sync --json` into `out` from `server`: the file's outcome and the bytes it cost.
    /// With no minimum rate: the server and the relays these tests put in front run in the test
    /// process, which a loaded machine can starve for longer than a rate window, and the rate is
    /// not their subject (`TransferRateTests` judge it on a clock of their own).
    package static func sync(_ server: String, root: URL) async throws -> (outcome: String, bytes: Int) {
        let arguments = ["sync", "--server", server, "--dir", "out", "--json", "--minimum-rate", "0"]
        let result = try await InProcessCLI.run(arguments, token: nil, in: root)
        #expect(result.status == 0, "\(result.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let file = (report?["files"] as? [[String: Any]])?.first { $0["path"] as? String == "table.db" }
        return (file?["outcome"] as? String ?? "none", file?["bytesTransferred"] as? Int ?? -1)
    }

    package static func synced(_ root: URL) throws -> Data { try Data(contentsOf: root.appendingPathComponent("out/table.db")) }

    /// What the whole file costs: its gzip size.
    package static func gzipSize(_ version: Int) -> Int {
        (try? Fixture.gzip(table(version: version)).count) ?? 0
    }

    /// The app writes to its copy: 200 rows' prices (1%), in place.
    package static func editedByTheApp(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        var random = Generator(seed: 99)
        for _ in 0..<200 {
            let row = random.next() % 20_000
            for (offset, byte) in "7777777777".utf8.enumerated() { bytes[row * 100 + 80 + offset] = byte }
        }
        return Data(bytes)
    }

    /// Publishes version 1 and syncs it, lets `change` alter the synced copy, publishes version
    /// 2, and syncs again by `second`; checks the copy is version 2 after, and returns the second
    /// sync's outcome and bytes.
    package static func syncAfterChange(
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

}
