import DepotDelta
import DepotTestFixtures
import Foundation
import Testing

/// Depot's VCDIFF against Debian's xdelta3, both ways. `scripts/setup` installs xdelta3; these
/// tests fail, rather than skip, when it is missing.
@Suite("VCDIFF interoperability with xdelta3")
struct InteroperabilityTests {
    static let xdelta3 = "/usr/bin/xdelta3"

    @Test(arguments: [21, 23] as [UInt64])
    func xdelta3RebuildsDepotPatches(seed: UInt64) async throws {
        try await withTemporaryDirectory { directory in
            let source = Samples.records(count: 40_000, seed: seed)
            let target = Samples.edited(source, seed: seed + 1)
            let delta = try VCDIFFEncoder.encode(source: source, target: target, options: .init(windowSize: 256 * 1024))
            let sourceFile = try directory.write(Data(source), to: "source")
            let deltaFile = try directory.write(Data(delta), to: "delta")
            let output = directory.appendingPathComponent("output")
            #expect(try await Samples.run(Self.xdelta3, ["-d", "-f", "-s", sourceFile.path, deltaFile.path, output.path]) == 0)
            #expect(try Data(contentsOf: output) == Data(target))
        }
    }

    @Test func xdelta3ReadsTargetCopies() async throws {
        try await withTemporaryDirectory { directory in
            let block = Array(Fixture.pseudoRandom(count: 10_000, seed: 29))
            let source = Samples.records(count: 5_000, seed: 27)
            let target = Array(source.prefix(50_000)) + block + block + Array(source.suffix(50_000)) + block
            let delta = try VCDIFFEncoder.encode(source: source, target: target)
            #expect(delta.count < block.count + 1_000)
            let sourceFile = try directory.write(Data(source), to: "source")
            let deltaFile = try directory.write(Data(delta), to: "delta")
            let output = directory.appendingPathComponent("output")
            #expect(try await Samples.run(Self.xdelta3, ["-d", "-f", "-s", sourceFile.path, deltaFile.path, output.path]) == 0)
            #expect(try Data(contentsOf: output) == Data(target))
        }
    }

    /// `-S none -A -n` is plain RFC 3284; the default flags add xdelta3's application header and
    /// per-window Adler-32, which Depot reads and checks too, and pack the sections with LZMA
    /// (`-S lzma`, xdelta3's default secondary compressor), which Depot unpacks.
    @Test(arguments: [["-S", "none", "-A", "-n"], ["-S", "none"], ["-S", "none", "-W", "65536"], [], ["-S", "lzma", "-W", "65536"]])
    func depotDecodesXdelta3(flags: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let source = Samples.records(count: 40_000, seed: 31)
            let half = source.count / 2
            let target = Samples.edited(Array(source[half...] + source[..<half]), seed: 33)
            let sourceFile = try directory.write(Data(source), to: "source")
            let targetFile = try directory.write(Data(target), to: "target")
            let deltaFile = directory.appendingPathComponent("delta")
            let status = try await Samples.run(Self.xdelta3, ["-e", "-9", "-f"] + flags + ["-s", sourceFile.path, targetFile.path, deltaFile.path])
            #expect(status == 0)
            let delta = Array(try Data(contentsOf: deltaFile))
            #expect(try VCDIFFDecoder.decode(delta, source: source) == target)
        }
    }

    @Test func xdelta3ChecksumCatchesTheWrongSource() throws {
        let corpus = HostileInputTests.corpus
        let delta = Array(try Data(contentsOf: corpus.appendingPathComponent("xdelta3-checksum-appheader.vcdiff")))
        var source = Array(try Data(contentsOf: corpus.appendingPathComponent("source.bin")))
        source[50] ^= 0xFF
        #expect(throws: VCDIFFError.self) { try VCDIFFDecoder.decode(delta, source: source) }
    }
}
