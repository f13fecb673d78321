import DepotTestFixtures
import Testing

@testable import DepotDelta

@Suite("Block indexes (zsync's method with packed blocks)")
struct BlockIndexTests {
    /// The index and packed object of `content`, made from pieces of `pieceSize` bytes.
    static func make(_ content: [UInt8], blockSize: Int = 1024, pieceSize: Int = 7_000) throws -> (BlockIndex, [UInt8]) {
        var builder = try BlockIndexBuilder(blockSize: blockSize)
        var packed: [UInt8] = []
        for start in stride(from: 0, to: content.count, by: pieceSize) {
            try content[start..<min(start + pieceSize, content.count)].withUnsafeBytes { try builder.append($0) { packed.append(contentsOf: $0) } }
        }
        let index = try builder.finish { packed.append(contentsOf: $0) }
        return (index, packed)
    }

    /// `content` rebuilt from `local` and the packed blocks it lacks; returns it and the packed
    /// bytes that had to be fetched.
    static func rebuild(_ index: BlockIndex, packed: [UInt8], local: [UInt8]) throws -> ([UInt8], Int) {
        let found = local.withUnsafeBytes { BlockMatcher.match(index, in: $0) }
        let offsets = index.packedOffsets()
        let inflater = try GzipInflater(framing: .raw)
        var rebuilt: [UInt8] = []
        var fetched = 0
        for block in index.blocks.indices {
            if let offset = found[block] {
                rebuilt += local[offset..<offset + index.length(ofBlock: block)]
            } else {
                let bytes = packed[Int(offsets[block])..<Int(offsets[block + 1])]
                fetched += bytes.count
                rebuilt += try bytes.withUnsafeBytes { try index.unpack(block: block, from: $0, inflater: inflater) }
            }
        }
        return (rebuilt, fetched)
    }

    @Test func rollingChecksumRollsAsItRecomputes() {
        let bytes = Samples.records(count: 200, seed: 3)
        var rolling = bytes.withUnsafeBytes { RollingChecksum(UnsafeRawBufferPointer(rebasing: $0[0..<64])) }
        for start in 1..<500 {
            rolling.roll(leaving: bytes[start - 1], entering: bytes[start + 63])
            #expect(rolling == bytes.withUnsafeBytes { RollingChecksum(UnsafeRawBufferPointer(rebasing: $0[start..<start + 64])) })
        }
    }

    @Test func encodesAndDecodes() throws {
        let content = Samples.records(count: 3_000, seed: 5)
        let (index, packed) = try Self.make(content)
        let decoded = try BlockIndex(decoding: index.encoded())
        #expect(decoded == index)
        #expect(index.blocks.count == (content.count + 1023) / 1024)
        #expect(index.packedOffsets().last == Int64(packed.count))
        // Text packs: the fetched blocks are compressed.
        #expect(packed.count * 2 < content.count)
    }

    /// Edits at any place, insertions that shift everything after them, and a short last block.
    @Test(arguments: [1, 2, 3])
    func rebuildsFromAnEditedCopyFetchingOnlyWhatChanged(seed: UInt64) throws {
        let content = Samples.records(count: 20_000, seed: seed)
        let (index, packed) = try Self.make(content)
        var local = Samples.edited(content, seed: seed + 10)
        local.insert(contentsOf: Array("inserted, shifting every later block".utf8), at: local.count / 3)
        let (rebuilt, fetched) = try Self.rebuild(index, packed: packed, local: local)
        #expect(rebuilt == content)
        #expect(fetched * 10 < packed.count, "fetched \(fetched) of \(packed.count) packed bytes")
        // A copy with nothing in common fetches everything; an identical one nothing.
        #expect(try Self.rebuild(index, packed: packed, local: []).1 == packed.count)
        #expect(try Self.rebuild(index, packed: packed, local: content).1 == 0)
    }

    @Test func aTamperedBlockIsRefused() throws {
        let content = Samples.records(count: 2_000, seed: 9)
        let (index, packed) = try Self.make(content)
        var tampered = packed
        tampered[Int(index.packedOffsets()[3]) + 5] ^= 0x40
        let inflater = try GzipInflater(framing: .raw)
        let offsets = index.packedOffsets()
        #expect(throws: VCDIFFError.self) {
            try tampered[Int(offsets[3])..<Int(offsets[4])].withUnsafeBytes { try index.unpack(block: 3, from: $0, inflater: inflater) }
        }
        // Another block's bytes, well formed, are refused too.
        #expect(throws: VCDIFFError.self) {
            try packed[Int(offsets[4])..<Int(offsets[5])].withUnsafeBytes { try index.unpack(block: 3, from: $0, inflater: inflater) }
        }
    }

    @Test(arguments: [
        [UInt8](), Array("DPBLOCK1".utf8), Array("NOTBLOCK".utf8) + [UInt8](repeating: 0, count: 12),
        Array("DPBLOCK1".utf8) + [0, 0, 0, 100] + [UInt8](repeating: 0, count: 8),
        Array("DPBLOCK1".utf8) + [0, 0, 4, 0] + [0, 0, 0, 0, 0, 0, 8, 0],
        Array("DPBLOCK1".utf8) + [0, 0, 2, 0] + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00],
    ])
    func refusesWhatIsNoIndex(bytes: [UInt8]) {
        #expect(throws: VCDIFFError.self) { try BlockIndex(decoding: bytes) }
    }

    /// 4,096 blocks of 512 bytes, all with the weak checksum of 512 zero bytes and strong
    /// checksums no bytes have: a hostile index for a local copy of zeros.
    static func sharedWeakIndex() -> BlockIndex {
        let zeros = [UInt8](repeating: 0, count: 512)
        let weak = zeros.withUnsafeBytes { RollingChecksum($0).value }
        let zeroStrong = zeros.withUnsafeBytes { BlockIndex.strongChecksum($0) }
        let blocks = (0..<4096).map { BlockIndex.Block(weak: weak, strong: zeroStrong &+ UInt64($0) &+ 1, packedLength: 0) }
        return BlockIndex(blockSize: 512, contentSize: 4096 * 512, blocks: blocks)
    }

    @Test("blocks that all share the weak checksum of a common window cost strong checks bounded by the local copy's blocks, not its offsets")
    func sharedWeakChecksum() {
        let local = [UInt8](repeating: 0, count: 2 << 20)
        var statistics = BlockMatcher.Statistics()
        let found = local.withUnsafeBytes { BlockMatcher.match(Self.sharedWeakIndex(), in: $0, statistics: &statistics) }
        #expect(found.allSatisfy { $0 == nil })
        // One a block where it was, then the misses before the weak checksum is given up; with
        // every candidate tried at every offset it was 2 million.
        #expect(statistics.strongChecks <= local.count / 512 + BlockMatcher.maximumMisses, "\(statistics.strongChecks)")
    }

    @Test("a copy mostly of zeros against an honest index: its blocks of zeros found, shifted ones too, in bounded work")
    func mostlyZeros() throws {
        var content = [UInt8](repeating: 0, count: 1 << 20)
        content.replaceSubrange(0..<4096, with: Array(Fixture.pseudoRandom(count: 4096, seed: 5)))
        let (index, _) = try Self.make(content, blockSize: 1024)
        // The local copy: the same, shifted by 100 bytes.
        let local = [UInt8](repeating: 7, count: 100) + content
        var statistics = BlockMatcher.Statistics()
        let found = local.withUnsafeBytes { BlockMatcher.match(index, in: $0, statistics: &statistics) }
        #expect(found.allSatisfy { $0 != nil }, "every block is in the local copy")
        #expect(statistics.strongChecks <= local.count / 1024 * 2 + BlockMatcher.maximumMisses, "\(statistics.strongChecks)")
    }
}
