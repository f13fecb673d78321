import Crypto

/// The block index of one content (`/blobs/{sha256}.blocks`): for each block of `blockSize`
/// bytes, rsync's weak checksum, the first 8 bytes of its SHA-256, and the length of the block
/// in the packed object (`/blobs/{sha256}.zblocks`, each block deflated on its own, in order).
///
/// A client whose copy of a file is no published version at all (the app wrote to it, or it
/// was damaged) finds the blocks it already has at any offset of its copy (``BlockMatcher``),
/// and fetches the others, compressed, by ranges of the packed object: zsync's method, with
/// the fetched blocks compressed. Hand-written, as is its small binary format: no listed
/// library makes or reads such an index, and zsync's own format has no packed blocks.
///
/// The format, all numbers big-endian:
///
/// | bytes | field |
/// |---|---|
/// | 8 | `DPBLOCK1` |
/// | 4 | block size: a power of two in ``blockSizes`` |
/// | 8 | content size |
/// | per block, 14 | weak checksum (4), SHA-256 prefix (8), packed length (2; 0: the block is stored as it is) |
///
/// The last block may be short; its checksums cover its own bytes.
public struct BlockIndex: Hashable, Sendable {
    /// One block's line.
    public struct Block: Hashable, Sendable {
        public var weak: UInt32
        public var strong: UInt64
        /// Its length in the packed object; 0 when it is stored there as it is.
        public var packedLength: UInt16
    }

    /// The block sizes an index may have.
    public static let blockSizes = 512...32768
    static let magic = Array("DPBLOCK1".utf8)
    static let headerSize = 20
    static let lineSize = 14

    public let blockSize: Int
    public let contentSize: Int64
    public private(set) var blocks: [Block]

    public init(blockSize: Int, contentSize: Int64, blocks: [Block]) {
        self.blockSize = blockSize
        self.contentSize = contentSize
        self.blocks = blocks
    }

    /// The number of blocks a content of `size` bytes has.
    public static func blockCount(contentSize size: Int64, blockSize: Int) -> Int {
        Int(size / Int64(blockSize) + (size % Int64(blockSize) == 0 ? 0 : 1))
    }

    /// The length of block `index` in the content.
    public func length(ofBlock index: Int) -> Int {
        Int(min(Int64(blockSize), contentSize - Int64(index) * Int64(blockSize)))
    }

    /// Where each block starts in the packed object, and (last) the packed object's size.
    public func packedOffsets() -> [Int64] {
        var offsets = [Int64](repeating: 0, count: blocks.count + 1)
        for (index, block) in blocks.enumerated() {
            offsets[index + 1] = offsets[index] + Int64(block.packedLength == 0 ? length(ofBlock: index) : Int(block.packedLength))
        }
        return offsets
    }

    /// The 8-byte prefix of the SHA-256 of `bytes`: a block's strong checksum.
    public static func strongChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        SHA256.hash(data: bytes).withUnsafeBytes { digest in
            digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// The index in its binary format.
    public func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + blocks.count * Self.lineSize)
        func append<Number: FixedWidthInteger>(_ number: Number) {
            withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(UInt32(blockSize))
        append(UInt64(contentSize))
        for block in blocks {
            append(block.weak)
            append(block.strong)
            append(block.packedLength)
        }
        return bytes
    }

    /// Reads an index in its binary format, as fetched (its bytes were checked against the
    /// SHA-256 the release lists).
    ///
    /// - Throws: ``VCDIFFError`` `.corrupt` when it is not one.
    public init(decoding bytes: [UInt8]) throws(VCDIFFError) {
        guard bytes.count >= Self.headerSize, Array(bytes.prefix(8)) == Self.magic else {
            throw VCDIFFError(.corrupt, "not a block index")
        }
        func number<Number: FixedWidthInteger>(at offset: Int, as: Number.Type) -> Number {
            bytes[offset..<offset + MemoryLayout<Number>.size].reduce(0) { $0 << 8 | Number($1) }
        }
        let blockSize = Int(number(at: 8, as: UInt32.self))
        let contentSize = number(at: 12, as: UInt64.self)
        guard Self.blockSizes.contains(blockSize), blockSize.nonzeroBitCount == 1, contentSize < UInt64(Int64.max) else {
            throw VCDIFFError(.corrupt, "the block index has a bad header")
        }
        // Compared by division: a hostile size must not overflow a multiplication.
        let count = Self.blockCount(contentSize: Int64(contentSize), blockSize: blockSize)
        let lines = bytes.count - Self.headerSize
        guard lines % Self.lineSize == 0, lines / Self.lineSize == count else {
            throw VCDIFFError(.corrupt, "the block index does not list one line per block")
        }
        self.blockSize = blockSize
        self.contentSize = Int64(contentSize)
        self.blocks = (0..<count).map { index in
            let line = Self.headerSize + index * Self.lineSize
            return Block(
                weak: number(at: line, as: UInt32.self),
                strong: number(at: line + 4, as: UInt64.self),
                packedLength: number(at: line + 12, as: UInt16.self)
            )
        }
        for (index, block) in blocks.enumerated() where Int(block.packedLength) >= length(ofBlock: index) {
            throw VCDIFFError(.corrupt, "block \(index) of the block index is packed no shorter than it is")
        }
    }
}
