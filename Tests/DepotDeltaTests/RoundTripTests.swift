import DepotTestFixtures
import Testing

@testable import DepotDelta

@Suite("VCDIFF round trips (RFC 3284)")
struct RoundTripTests {
    @Test func smallEdit() throws {
        let source = Array("The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog again.".utf8)
        var target = source
        target[10] = UInt8(ascii: "B")
        target.append(contentsOf: Array(repeating: UInt8(ascii: "z"), count: 40))
        let delta = try VCDIFFEncoder.encode(source: source, target: target)
        #expect(try VCDIFFDecoder.decode(delta, source: source) == target)
        #expect(delta.count < 60)
    }

    @Test(arguments: [1, 3, 5, 7])
    func editedRecords(seed: UInt64) throws {
        let source = Samples.records(count: 20_000, seed: seed)
        let target = Samples.edited(source, seed: seed + 10)
        let delta = try VCDIFFEncoder.encode(source: source, target: target)
        #expect(try VCDIFFDecoder.decode(delta, source: source) == target)
        // A handful of edits cost a handful of instructions, not a copy of the file.
        #expect(delta.count < 1_000, "delta of \(delta.count) bytes for a \(target.count)-byte target")
    }

    @Test func manyWindowsAndMovedBlocks() throws {
        let source = Samples.records(count: 30_000, seed: 11)
        // The target is the source's halves swapped, then edited, in 64 KiB windows.
        let half = source.count / 2
        let target = Samples.edited(Array(source[half...] + source[..<half]), seed: 13)
        let options = VCDIFFEncoder.Options(windowSize: 64 * 1024)
        let delta = try VCDIFFEncoder.encode(source: source, target: target, options: options)
        #expect(try VCDIFFDecoder.decode(delta, source: source) == target)
        #expect(delta.count < 2_000)
    }

    @Test func edgeCases() throws {
        let text = Samples.records(count: 100, seed: 17)
        let cases: [(source: [UInt8], target: [UInt8])] = [
            ([], []),
            (text, []),
            ([], text),
            (text, text),
            (Array(repeating: 0, count: 1000), Array(repeating: 0, count: 100_000)),
            (text, Array(text.reversed())),
            ([1, 2, 3], [3, 2, 1]),
        ]
        for (source, target) in cases {
            let delta = try VCDIFFEncoder.encode(source: source, target: target)
            #expect(try VCDIFFDecoder.decode(delta, source: source) == target)
        }
    }

    /// New content that repeats itself is copied from earlier in the target window.
    @Test func repeatedNewContentUsesTargetCopies() throws {
        let block = Array(Fixture.pseudoRandom(count: 4096, seed: 19))
        let target = block + block + block + block
        let delta = try VCDIFFEncoder.encode(source: Array("unrelated".utf8), target: target)
        #expect(delta.count < block.count + 100)
        #expect(try VCDIFFDecoder.decode(delta, source: Array("unrelated".utf8)) == target)
    }

    @Test func runsBecomeRunInstructions() throws {
        let target = Array(repeating: UInt8(7), count: 1 << 20)
        let delta = try VCDIFFEncoder.encode(source: [], target: target)
        #expect(delta.count < 32)
        #expect(try VCDIFFDecoder.decode(delta, source: []) == target)
    }

    /// RFC 3284 §2: base-128 integers, most significant digit first.
    @Test func integers() throws {
        let cases: [(Int, [UInt8])] = [(0, [0]), (127, [0x7F]), (128, [0x81, 0x00]), (123_456_789, [0xBA, 0xEF, 0x9A, 0x15])]
        for (value, encoded) in cases {
            var bytes: [UInt8] = []
            VCDIFFInteger.append(value, to: &bytes)
            #expect(bytes == encoded)
            let decoded = try encoded.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer)
                return try reader.integer("a test integer")
            }
            #expect(decoded == value)
        }
    }

    /// RFC 3284 §5.6: spot checks of the default code table.
    @Test func defaultCodeTable() {
        let table = CodeTable.default
        #expect(table.bytes.count == 1536)
        #expect(table.first[0].type == .run && table.first[0].size == 0)
        #expect(table.first[18].type == .add && table.first[18].size == 17)
        #expect(table.first[19].type == .copy && table.first[19].size == 0 && table.first[19].mode == 0)
        #expect(table.first[162].type == .copy && table.first[162].size == 18 && table.first[162].mode == 8)
        #expect(table.first[163].type == .add && table.first[163].size == 1 && table.second[163].size == 4)
        #expect(table.second[234].type == .copy && table.second[234].size == 6 && table.second[234].mode == 5)
        #expect(table.second[246].mode == 8 && table.first[246].size == 4)
        #expect(table.first[255].type == .copy && table.first[255].mode == 8 && table.second[255].type == .add)
    }

    /// RFC 3284 §7: a delta may bring its own code table, itself a delta against the default
    /// table's string. This one swaps opcodes 2 and 3 (ADD of 1 and of 2 bytes).
    @Test func customCodeTable() throws {
        let standard = CodeTable.default.bytes
        var custom = standard
        for array in 0..<6 { custom.swapAt(array * 256 + 2, array * 256 + 3) }
        let tableDelta = try VCDIFFEncoder.encode(source: standard, target: custom)
        var tableData: [UInt8] = [4, 3] + tableDelta
        var header = VCDIFF.magic + [VCDIFF.HeaderIndicator.codeTable]
        VCDIFFInteger.append(tableData.count, to: &header)
        tableData = header + tableData
        // One window, no source: opcode 3 is now "ADD 1 byte", opcode 2 "ADD 2 bytes".
        let window: [UInt8] = [0, 10, 3, 0, 3, 2, 0, UInt8(ascii: "x"), UInt8(ascii: "y"), UInt8(ascii: "z"), 3, 2]
        let decoded = try VCDIFFDecoder.decode(tableData + window, source: [])
        #expect(decoded == Array("xyz".utf8))
    }
}
