import DepotTestSupport
import Foundation
import Testing

/// Issue 41: what `depot sync --check` expects a download to transfer is what `--download-only`
/// then transfers, within 5 %, for each way a file can come: a listed patch, blocks of a copy
/// the app changed, small files in a page's pack, the gzip variant, the file whole.
@Suite("What a check expects a download to cost")
struct CheckEstimateTests {
    /// How a row makes its change once release 1 is synced into `out`: what it publishes (and
    /// does to the copy), and the way the download should take.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let way: String
        let change: @Sendable (_ root: URL, _ server: String) async throws -> Void
        var testDescription: String { name }
    }

    static func publish(_ paths: [String], root: URL, server: String) async throws {
        try await InProcessCLI.publish(paths, to: server, in: root)
    }

    static let rows: [Row] = [
        Row(name: "a listed patch", way: "delta") { root, server in
            try await DeltaTable.publish(2, root: root, server: server)
        },
        Row(name: "blocks of a copy the app changed", way: "blocks") { root, server in
            try DeltaTable.editedByTheApp(try DeltaTable.synced(root)).write(to: root.appendingPathComponent("out/table.db"))
            try await DeltaTable.publish(2, root: root, server: server)
        },
        Row(name: "small files in a page's pack", way: "packed") { root, server in
            // Odd seeds: each file its own bytes (seeds 2k and 2k+1 give the same), so the page has no brotli pack and its plain
            // pack is what comes. A brotli pack's length is the server's word: a plan counts the plain pack, as a bound.
            for index in 0..<40 { try root.write(Fixture.pseudoRandom(count: 3_000, seed: UInt64(2 * index + 1)), to: "small/f\(index).bin") }
            try await publish(["small"], root: root, server: server)
        },
        Row(name: "the gzip variant", way: "gzip") { root, server in
            try root.write(Fixture.text + Fixture.text + Fixture.text, to: "doc.txt")
            try await publish(["doc.txt"], root: root, server: server)
        },
        Row(name: "the file whole", way: "full") { root, server in
            try root.write(Fixture.pseudoRandom(count: 1_500_000, seed: 5), to: "noise.bin")
            try await publish(["noise.bin"], root: root, server: server)
        },
    ]

    /// The sum of `key` over the `files` of a JSON object, and their `outcome`s or `way`s.
    static func files(_ json: String, bytes key: String, way: String) throws -> (bytes: Int, ways: Set<String>) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let files = object["files"] as? [[String: Any]] ?? []
        return (files.reduce(0) { $0 + ($1[key] as? Int ?? 0) }, Set(files.compactMap { $0[way] as? String }))
    }

    @Test("check's expected bytes against what the download transfers, by way", arguments: rows)
    func estimate(_ row: Row) async throws {
        try await InProcessCLI.withServer(environment: DeltaTable.environment) { root, server in
            try await DeltaTable.publish(1, root: root, server: server)
            let sync = ["sync", "--server", server, "--dir", "out", "--json", "--minimum-rate", "0"]
            #expect(try await InProcessCLI.run(sync, token: nil, in: root).status == 0)
            try await row.change(root, server)
            // A listed patch is made after the release: the check waits until it is listed.
            var plan: (bytes: Int, ways: Set<String>) = (0, [])
            for _ in 0..<600 {
                let check = try await InProcessCLI.run(sync + ["--check"], token: nil, in: root)
                #expect(check.status == 0, "\(check.errors)")
                plan = try Self.files(check.output, bytes: "expectedBytes", way: "way")
                if row.way != "delta" || plan.ways == ["delta"] { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let downloaded = try await InProcessCLI.run(sync + ["--download-only"], token: nil, in: root)
            #expect(downloaded.status == 0, "\(downloaded.errors)")
            let report = try Self.files(downloaded.output, bytes: "bytesTransferred", way: "outcome")
            #expect(report.ways == [row.way], "\(row.name): came \(report.ways), planned \(plan.ways)")
            #expect(
                abs(Double(report.bytes - plan.bytes)) <= Double(plan.bytes) * 0.05,
                "\(row.name): \(report.bytes) bytes transferred, \(plan.bytes) expected"
            )
        }
    }
}
