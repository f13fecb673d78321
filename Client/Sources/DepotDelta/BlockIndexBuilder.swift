/// Makes a ``BlockIndex`` and its packed object from a content read in pieces of any size:
/// each block is checksummed and deflated on its own (stored as it is when deflating does not
/// shrink it), and its packed bytes are handed on at once, so memory stays at one block.
public struct BlockIndexBuilder {
    public let blockSize: Int
    private var blocks: [BlockIndex.Block] = []
    private var pending: [UInt8] = []
    private var contentSize: Int64 = 0
    private let deflater: GzipDeflater

    /// - Parameter blockSize: One of ``BlockIndex/blockSizes``, a power of two.
    public init(blockSize: Int) throws {
        precondition(BlockIndex.blockSizes.contains(blockSize) && blockSize.nonzeroBitCount == 1, "bad block size \(blockSize)")
        self.blockSize = blockSize
        // Level 9: each block is made once and fetched by many clients.
        deflater = try GzipDeflater(level: 9, framing: .raw)
        pending.reserveCapacity(blockSize)
    }

    /// Takes the next piece of the content; `packed` receives the packed object's next bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, packed: (UnsafeRawBufferPointer) throws -> Void) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            if pending.isEmpty, rest.count >= blockSize {
                try addBlock(UnsafeRawBufferPointer(rebasing: rest.prefix(blockSize)), packed: packed)
                rest = rest.dropFirst(blockSize)
                continue
            }
            let taken = rest.prefix(blockSize - pending.count)
            pending.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            if pending.count == blockSize {
                let block = pending
                pending.removeAll(keepingCapacity: true)
                try block.withUnsafeBytes { try addBlock($0, packed: packed) }
            }
        }
    }

    /// Ends the content (its last, short block) and returns the index.
    public mutating func finish(packed: (UnsafeRawBufferPointer) throws -> Void) throws -> BlockIndex {
        if !pending.isEmpty {
            let block = pending
            pending.removeAll()
            try block.withUnsafeBytes { try addBlock($0, packed: packed) }
        }
        return BlockIndex(blockSize: blockSize, contentSize: contentSize, blocks: blocks)
    }

    private mutating func addBlock(_ block: UnsafeRawBufferPointer, packed: (UnsafeRawBufferPointer) throws -> Void) throws {
        var deflated: [UInt8] = []
        deflater.reset()
        try deflater.compress(block, finish: true) { deflated.append(contentsOf: $0) }
        let stored = deflated.count >= block.count
        if stored { try packed(block) } else { try deflated.withUnsafeBytes { try packed($0) } }
        blocks.append(
            BlockIndex.Block(
                weak: RollingChecksum(block).value,
                strong: BlockIndex.strongChecksum(block),
                packedLength: stored ? 0 : UInt16(deflated.count)
            )
        )
        contentSize += Int64(block.count)
    }
}
