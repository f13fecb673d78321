import DepotDelta
import DepotTestFixtures
import Foundation
import Testing

/// The sample that spares deflate where it cannot pay, against what deflate really saves.
@Suite("Compression sample")
struct CompressionSampleTests {
    struct Row: Sendable, CustomStringConvertible {
        let description: String
        let bytes: [UInt8]
    }

    static func random(_ count: Int, seed: UInt64) -> [UInt8] {
        Array(Fixture.pseudoRandom(count: count, seed: seed))
    }

    static let rows: [Row] = [
        Row(description: "1 KiB of random bytes", bytes: random(1024, seed: 1)),
        Row(description: "64 KiB of random bytes", bytes: random(65536, seed: 2)),
        Row(description: "200 random bytes", bytes: random(200, seed: 3)),
        Row(
            description: "a random 256-byte block four times (high entropy, but matches)",
            bytes: Array(repeating: random(256, seed: 4), count: 4).flatMap { $0 }
        ),
        Row(
            description: "JSON",
            bytes: Array(#"{"id": 17, "name": "Gare du Nord", "lines": ["B", "D", "E"], "zone": 1}, "#.utf8)
                + Array(String(repeating: #"{"id": 18}, "#, count: 40).utf8)
        ),
        Row(description: "English text", bytes: Array(String(repeating: "A catalog of timetables, shipped to every phone. ", count: 30).utf8)),
        Row(description: "random bytes of the letters a–p (4 bits each)", bytes: random(2048, seed: 5).map { 97 + $0 % 16 }),
        Row(description: "zeros", bytes: [UInt8](repeating: 0, count: 4096)),
        Row(description: "gzip output of text (already compressed)", bytes: try! gzip(random(8192, seed: 6).map { 97 + $0 % 16 })),
    ]

    @Test("the sample says 'no gain' only where deflate saves less than 5 %", arguments: rows)
    func matchesDeflate(row: Row) throws {
        let saved = 1 - Double(try Self.gzip(row.bytes).count) / Double(row.bytes.count)
        let mayPay = row.bytes.withUnsafeBytes { CompressionSample.mayPay($0, minimumSavings: 0.05) }
        if !mayPay { #expect(saved < 0.05, "deflate saved \(saved)") }
        if saved >= 0.05 { #expect(mayPay, "deflate saved \(saved)") }
    }

    @Test("random and compressed bytes are judged 'no gain': the sample spares deflate there")
    func sparesDeflate() throws {
        for row in Self.rows where row.description.hasPrefix("1 KiB") || row.description.hasPrefix("64 KiB") || row.description.hasPrefix("gzip") {
            #expect(!row.bytes.withUnsafeBytes { CompressionSample.mayPay($0, minimumSavings: 0.05) }, "\(row)")
        }
    }

    @Test("too short a sample is no evidence: deflate is tried")
    func shortSample() {
        #expect(Self.random(63, seed: 7).withUnsafeBytes { CompressionSample.mayPay($0, minimumSavings: 0.05) })
    }

    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBytes { try Gzip.compress($0) }
    }
}
