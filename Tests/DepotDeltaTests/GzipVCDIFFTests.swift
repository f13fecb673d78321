import DepotTestFixtures
import Foundation
import Testing

@testable import DepotDelta

/// Patches as Depot stores them: VCDIFF in a gzip stream, made and applied by ``GzipVCDIFF``.
@Suite("gzip-compressed VCDIFF")
struct GzipVCDIFFTests {
    static let source = Samples.records(count: 20_000, seed: 3)
    static let target = Samples.edited(source, seed: 13)

    @Test("a patch made in memory applies back to the target, and is a gzip stream gunzip reads")
    func roundTrip() throws {
        let patch = try GzipVCDIFF.make(from: Self.source, to: Self.target)
        #expect(Array(patch.prefix(2)) == [0x1f, 0x8b])
        let applied = try patch.withUnsafeBytes { patch in
            try Self.source.withUnsafeBytes { try GzipVCDIFF.apply(patch, source: $0, maximumTargetSize: Self.target.count) }
        }
        #expect(applied == Self.target)
        // Inside: exactly the VCDIFF the encoder makes.
        let delta = try patch.withUnsafeBytes { try GzipVCDIFF.inflate($0, maximumTargetSize: Self.target.count) }
        #expect(delta == (try VCDIFFEncoder.encode(source: Self.source, target: Self.target)))
    }

    @Test("window by window, the encoder writes the same stream as the whole")
    func windows() throws {
        var streamed: [UInt8] = []
        let append: (UnsafeRawBufferPointer) -> Void = { streamed.append(contentsOf: $0) }
        var encoder = try GzipVCDIFF.Encoder(source: Self.source, output: append)
        try Self.target.withUnsafeBytes { target in
            var start = 0
            while start < target.count {
                let end = min(target.count, start + encoder.windowSize)
                try encoder.encode(window: UnsafeRawBufferPointer(rebasing: target[start..<end]), output: append)
                start = end
            }
        }
        try encoder.finish(output: append)
        #expect(streamed == (try GzipVCDIFF.make(from: Self.source, to: Self.target)))
    }

    @Test("a truncated, damaged or inflating patch is refused, never applied")
    func refusals() throws {
        let patch = try GzipVCDIFF.make(from: Self.source, to: Self.target)
        var damaged = patch
        damaged[20] ^= 0xff
        // A gzip stream of 8 MiB of zeros: far more than a 1 KiB target's delta can be.
        let bomb = try Self.gzip(of: [UInt8](repeating: 0, count: 8 << 20))
        for (bytes, limit) in [(Array(patch.dropLast(10)), Self.target.count), (damaged, Self.target.count), (Array(bomb), 1024)] {
            #expect(throws: (any Error).self) {
                try bytes.withUnsafeBytes { patch in
                    try Self.source.withUnsafeBytes { try GzipVCDIFF.apply(patch, source: $0, maximumTargetSize: limit) }
                }
            }
        }
        #expect(throws: GzipError.self) {
            try Array(bomb).withUnsafeBytes { try GzipVCDIFF.inflate($0, maximumTargetSize: 1024) }
        }
    }

    @Test("step by step, gunzip never hands out more than its buffer at once, even of 8 MiB of zeros in 8 KiB of gzip")
    func boundedSteps() throws {
        let target = [UInt8](repeating: 0, count: 8 << 20) + Array("the end".utf8)
        let compressed = try Self.gzip(of: target)
        #expect(compressed.count < 10_000)
        let inflater = try GzipInflater(bufferSize: 4096)
        var output: [UInt8] = []
        var steps = 0
        try compressed.withUnsafeBytes { input in
            var consumed = 0
            var produced = 0
            repeat {
                let step = try inflater.step(UnsafeRawBufferPointer(rebasing: input[consumed...])) { piece in
                    #expect(piece.count <= 4096)
                    output.append(contentsOf: piece)
                }
                consumed += step.consumed
                produced = step.produced
                steps += 1
            } while consumed < input.count || produced == 4096
        }
        #expect(output == target)
        #expect(inflater.isFinished)
        #expect(steps >= target.count / 4096)
    }

    static func gzip(of bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBytes { try Gzip.compress($0) }
    }
}
