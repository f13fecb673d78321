import DepotClient
import DepotCodecs
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// The client takes the smallest whole download it decodes (issue 45): brotli or zstd when the
/// release lists them, gzip otherwise, from a real server, and says so in its report.
@Suite("Variant sync")
struct VariantSyncTests {
    /// (what the server makes, the outcome and encoding the client reports). On Linux the
    /// client decodes all three; with both variants it takes the smaller.
    static let cases: [(String, VariantConfiguration, SyncReport.Outcome?, String?)] = [
        ("brotli alone", .init(brotli: .init(quality: 9, window: 22), zstd: nil, background: false), .brotli, "br"),
        ("zstd alone", .init(brotli: nil, zstd: .init(level: 12, longWindow: nil), background: false), .zstd, "zstd"),
        ("both: the smaller", .init(brotli: .init(quality: 9, window: 22), zstd: .init(level: 12, longWindow: 20), background: false), nil, nil),
        ("none: gzip", .none, .gzip, "gzip"),
    ]

    @Test("a cold sync downloads the catalog in the smallest variant, decoded and checked", arguments: Self.cases.indices)
    func coldSync(index: Int) async throws {
        let (why, variants, outcome, encoding) = Self.cases[index]
        var configuration = ServerConfiguration()
        configuration.variants = variants
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.publish([("db/catalog.sqlite", Fixture.catalogRows)])
            let sizes = try await server.withConnection { connection in
                let entry = try #require(try await connection.releaseFiles().first)
                return ["br": entry["brotli"], "zstd": entry["zstd"], "gzip": entry["gzip"]].compactMapValues {
                    ($0 as? [String: Any])?["size"] as? Int
                }
            }
            let smallest = try #require(sizes.min { $0.value < $1.value })
            try await withTemporaryDirectory { folder in
                let report = try await SyncTests.client(server, folder).sync()
                let file = try #require(report.files.first)
                #expect(SyncTests.contents(folder, "db/catalog.sqlite") == Fixture.catalogRows, "\(why)")
                #expect(file.encoding == (encoding ?? smallest.key), "\(why): \(file)")
                let expectedOutcome: SyncReport.Outcome = ["br": .brotli, "zstd": .zstd, "gzip": .gzip][smallest.key]!
                #expect(file.outcome == (outcome ?? expectedOutcome), "\(why): \(file)")
                #expect(file.bytesTransferred == Int64(smallest.value), "\(why): the variant's bytes, no more")
            }
        }
    }

    @Test("a variant that does not decode to the release's bytes fails the file and leaves the folder as it was")
    func tamperedVariant() async throws {
        var configuration = ServerConfiguration()
        configuration.variants = .init(brotli: .init(quality: 9, window: 22), zstd: nil, background: false)
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.publish([("db/catalog.sqlite", Fixture.catalogRows)])
            let brotli = try await server.withConnection { connection in
                let entry = try #require(try await connection.releaseFiles().first)
                return try #require((entry["brotli"] as? [String: Any])?["sha256"] as? String)
            }
            // The stored variant, its bytes changed in place (same size): what a hostile disk or
            // mirror would serve under the listed URL.
            let stored = server.dataDirectory.appendingPathComponent("blobs/\(brotli.prefix(2))/\(brotli)")
            var bytes = try Data(contentsOf: stored)
            bytes[bytes.count / 2] ^= 0x55
            try bytes.write(to: stored)
            try await withTemporaryDirectory { folder in
                let report = try await failedReport { try await SyncTests.client(server, folder).sync() }
                #expect(report.files.first?.outcome == .failed, "\(report.files)")
                #expect(SyncTests.contents(folder, "db/catalog.sqlite") == nil)
            }
        }
    }
}
