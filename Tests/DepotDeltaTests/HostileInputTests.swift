import DepotDelta
import DepotTestFixtures
import Foundation
import Testing

/// The decoder against damaged and hostile deltas: every one ends in a `VCDIFFError`, never a
/// crash, and no allocation beyond the limits. The seed corpus is `Corpus/`, shared with the
/// libFuzzer target `scripts/fuzz delta` runs.
@Suite("VCDIFF hostile input")
struct HostileInputTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")
    static let limits = VCDIFFDecoder.Limits(maximumWindowSize: 1 << 20, maximumTargetSize: 4 << 20)

    static func source() throws -> [UInt8] {
        Array(try Data(contentsOf: corpus.appendingPathComponent("source.bin")))
    }

    static func decode(_ name: String) throws -> [UInt8] {
        let delta = Array(try Data(contentsOf: corpus.appendingPathComponent(name)))
        return try VCDIFFDecoder.decode(delta, source: try source(), limits: limits)
    }

    @Test(arguments: [
        ("hostile-huge-window.vcdiff", VCDIFFError.Code.limitExceeded),
        ("hostile-copy-out-of-range.vcdiff", .corrupt),
        ("hostile-segment-past-source.vcdiff", .wrongSource),
        ("hostile-overflowing-integer.vcdiff", .limitExceeded),
        ("hostile-secondary-compressor.vcdiff", .unsupported),
        ("hostile-instructions-overrun.vcdiff", .corrupt),
        ("hostile-bad-magic.vcdiff", .corrupt),
        ("hostile-truncated.vcdiff", .truncated),
        ("hostile-lzma-dictionary.vcdiff", .limitExceeded),
    ])
    func hostileDeltaIsRefused(name: String, code: VCDIFFError.Code) throws {
        let error = #expect(throws: VCDIFFError.self) { try Self.decode(name) }
        #expect(error?.code == code, "\(name): \(String(describing: error))")
    }

    @Test func validCorpusDecodes() throws {
        let expected = Array(try Data(contentsOf: Self.corpus.appendingPathComponent("source.bin")))
        for name in ["depot-edit.vcdiff", "xdelta3-plain.vcdiff", "xdelta3-checksum-appheader.vcdiff"] {
            let target = try Self.decode(name)
            #expect(target.count > expected.count - 200 && target.count < expected.count + 200, "\(name)")
        }
        #expect(try Self.decode("xdelta3-no-source.vcdiff") == Self.decode("depot-edit.vcdiff"))
        #expect(try Self.decode("overlapping-target-copy.vcdiff") == Array(String(repeating: "ab", count: 50).utf8))
        // xdelta3's default secondary compressor (LZMA), over two windows: the second window's
        // data section continues the first's stream.
        #expect(try Self.decode("xdelta3-lzma.vcdiff") == Array(try Data(contentsOf: Self.corpus.appendingPathComponent("xdelta3-lzma.target"))))
    }

    /// Every file of the corpus, as the fuzz target runs it: any outcome but a crash or an error
    /// of another type.
    @Test func wholeCorpus() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".vcdiff") }
        #expect(names.count >= 12)
        for name in names {
            do {
                _ = try Self.decode(name)
            } catch is VCDIFFError {}
        }
    }

    /// Every prefix of a valid delta, and thousands of random mutations of it: a plain one of
    /// one window, and one of two 16 KiB windows whose sections are LZMA streams.
    @Test(arguments: [("xdelta3-plain.vcdiff", 1), ("xdelta3-lzma.vcdiff", 2)])
    func truncationsAndMutations(name: String, windows: Int) throws {
        let source = try Self.source()
        let valid = Array(try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        // The header alone is a valid delta of an empty target, and so is each prefix that ends
        // with a window; every other prefix is cut.
        var whole = 0
        for length in 0..<valid.count {
            do {
                let target = try VCDIFFDecoder.decode(Array(valid[..<length]), source: source, limits: Self.limits)
                #expect(target.count % (16 << 10) == 0)
                whole += 1
            } catch is VCDIFFError {}
        }
        #expect(whole == windows)
        let noise = Array(Fixture.pseudoRandom(count: 5_000 * 4, seed: 77))
        for round in 0..<5_000 {
            var delta = valid
            let position = (Int(noise[round * 4]) << 8 | Int(noise[round * 4 + 1])) % delta.count
            switch noise[round * 4 + 2] % 3 {
            case 0: delta[position] = noise[round * 4 + 3]
            case 1: delta.insert(noise[round * 4 + 3], at: position)
            default: delta.remove(at: position)
            }
            do {
                _ = try VCDIFFDecoder.decode(delta, source: source, limits: Self.limits)
            } catch is VCDIFFError {}
        }
    }

    @Test func targetLimitIsEnforced() throws {
        let delta = try VCDIFFEncoder.encode(source: [], target: Array(repeating: 1, count: 100_000))
        let error = #expect(throws: VCDIFFError.self) {
            try VCDIFFDecoder.decode(delta, source: [], limits: .init(maximumWindowSize: 1 << 20, maximumTargetSize: 99_999))
        }
        #expect(error?.code == .limitExceeded)
    }
}
