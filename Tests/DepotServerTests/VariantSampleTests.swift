import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// Whether brotli and zstd are tried on a content (issue 56): only where its gzip variant or a
/// sample says they can pay, so an incompressible file costs no encoding.
@Suite("Variants: the sample before encoding")
struct VariantSampleTests {
    static let random = [UInt8](Fixture.pseudoRandom(count: 64 * 1024, seed: 11))
    static let text = [UInt8](Fixture.catalogRows.prefix(64 * 1024))

    /// (why, has a gzip variant, the samples, tried).
    static let rows: [(String, Bool, [[UInt8]], Bool)] = [
        ("random bytes, no gzip variant: nothing to save", false, [random, random, random], false),
        ("a gzip variant: brotli and zstd save more", true, [random, random, random], true),
        ("text: every sample compresses", false, [text, text, text], true),
        ("random start, text in the middle: the middle sample pays", false, [random, text, random], true),
        ("random start, text at the end", false, [random, random, text], true),
        ("zeros", false, [[UInt8](repeating: 0, count: 65536)], true),
        ("a sample too short to judge: tried", false, [[1, 2, 3]], true),
    ]

    @Test("tried only where gzip or a sample may pay", arguments: rows.indices)
    func worthTrying(index: Int) {
        let (why, hasGzip, samples, tried) = Self.rows[index]
        let variants = VariantConfiguration()
        func judge(_ index: Int, _ buffers: [UnsafeRawBufferPointer]) -> Bool {
            guard index < samples.count else { return variants.worthTrying(gzipSize: hasGzip ? 1000 : nil, samples: buffers) }
            return samples[index].withUnsafeBytes { judge(index + 1, buffers + [$0]) }
        }
        #expect(judge(0, []) == tried, "\(why)")
    }

    @Test(
        "samples at the start, middle and end of a content",
        arguments: [(1000, [0]), (65536, [0]), (65537, [0, 1]), (200_000, [0, 67_232, 134_464])] as [(Int64, [Int64])]
    )
    func offsets(size: Int64, offsets: [Int64]) {
        #expect(VariantConfiguration.sampleOffsets(size: size) == offsets)
    }
}
