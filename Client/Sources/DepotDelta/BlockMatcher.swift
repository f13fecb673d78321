/// Finds, in a local copy of any content, the blocks of a ``BlockIndex`` it already holds, at
/// any offset: zsync's search. The weak checksum rolls over every offset not covered by a
/// match; a bit table of the index's weak checksums rules out most offsets with one load, and
/// a weak match is confirmed by the strong checksum.
///
/// Its cost is bounded by the local copy's size, whatever the index holds: blocks are looked up
/// by their checksums, not walked; each block is first tried where it was (one strong check a
/// block, the common case of bytes changed in place); and a weak checksum whose strong check
/// fails ``maximumMisses`` times is given up, so an index whose blocks all share the weak
/// checksum of a common window (a hostile one, or many blocks of zeros) cannot make the walk
/// hash every offset.
public enum BlockMatcher {
    /// How often a weak checksum may match where no block's bytes are before it is no longer
    /// looked for.
    public static let maximumMisses = 64

    /// What a match cost: how many strong checksums it computed.
    public struct Statistics: Sendable, Equatable {
        public var strongChecks = 0
    }

    /// For each block of `index`, an offset of `local` where its bytes are, or nil.
    public static func match(_ index: BlockIndex, in local: UnsafeRawBufferPointer) -> [Int?] {
        var statistics = Statistics()
        return match(index, in: local, statistics: &statistics)
    }

    /// ``match(_:in:)``, counting its work in `statistics`.
    public static func match(_ index: BlockIndex, in local: UnsafeRawBufferPointer, statistics: inout Statistics) -> [Int?] {
        var found = [Int?](repeating: nil, count: index.blocks.count)
        let blockSize = index.blockSize
        let fullBlocks = index.blocks.indices.filter { index.length(ofBlock: $0) == blockSize }
        // Blocks by weak, then strong checksum: a lookup, however many blocks share a weak one.
        var byWeak: [UInt32: [UInt64: [Int]]] = [:]
        for block in fullBlocks { byWeak[index.blocks[block].weak, default: [:]][index.blocks[block].strong, default: []].append(block) }
        var misses: [UInt32: Int] = [:]
        // 2²⁰ bits (128 KiB): about 5% of offsets reach the dictionary with 50,000 blocks.
        let filterBits = 20
        var filter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
        func slot(_ weak: UInt32) -> Int { Int((weak ^ (weak >> 20)) & (1 << filterBits - 1)) }
        for weak in byWeak.keys { filter[slot(weak) >> 6] |= 1 << UInt64(slot(weak) & 63) }

        func strong(at offset: Int) -> UInt64 {
            statistics.strongChecks += 1
            return BlockIndex.strongChecksum(UnsafeRawBufferPointer(rebasing: local[offset..<offset + blockSize]))
        }

        // Each block where it was first: one strong check a block whose weak checksum matches.
        for block in fullBlocks where (block + 1) * blockSize <= local.count {
            let offset = block * blockSize
            let weak = RollingChecksum(UnsafeRawBufferPointer(rebasing: local[offset..<offset + blockSize])).value
            if weak == index.blocks[block].weak, strong(at: offset) == index.blocks[block].strong { found[block] = offset }
        }

        /// Marks every block with these bytes as found at `offset`; whether there are any (found
        /// earlier or now: a match to skip over either way).
        func confirm(_ weak: UInt32, at offset: Int) -> Bool {
            guard let byStrong = byWeak[weak] else { return false }
            guard let blocks = byStrong[strong(at: offset)] else {
                misses[weak, default: 0] += 1
                if misses[weak]! >= maximumMisses { byWeak[weak] = nil }
                return false
            }
            for block in blocks where found[block] == nil { found[block] = offset }
            return true
        }

        if local.count >= blockSize, !byWeak.isEmpty {
            var offset = 0
            var checksum = RollingChecksum(UnsafeRawBufferPointer(rebasing: local[0..<blockSize]))
            while true {
                let weak = checksum.value
                let candidate = filter[slot(weak) >> 6] & (1 << UInt64(slot(weak) & 63)) != 0
                if candidate, confirm(weak, at: offset) {
                    offset += blockSize
                    guard offset + blockSize <= local.count else { break }
                    checksum = RollingChecksum(UnsafeRawBufferPointer(rebasing: local[offset..<offset + blockSize]))
                    continue
                }
                guard offset + blockSize < local.count else { break }
                checksum.roll(leaving: local[offset], entering: local[offset + blockSize])
                offset += 1
            }
        }
        // A short last block: where it would be, or at the end of the local copy.
        if let last = index.blocks.indices.last, index.length(ofBlock: last) < blockSize {
            let length = index.length(ofBlock: last)
            let place = last * blockSize
            for offset in [place, local.count - length] where offset >= 0 && offset + length <= local.count && found[last] == nil {
                let bytes = UnsafeRawBufferPointer(rebasing: local[offset..<offset + length])
                if RollingChecksum(bytes).value == index.blocks[last].weak, BlockIndex.strongChecksum(bytes) == index.blocks[last].strong {
                    found[last] = offset
                }
            }
        }
        return found
    }
}

extension BlockIndex {
    /// Block `index` from its packed bytes, checked against its checksums.
    ///
    /// - Throws: ``VCDIFFError`` `.corrupt` when the bytes are not the block (a tampered or
    ///   damaged answer).
    public func unpack(block index: Int, from packed: UnsafeRawBufferPointer, inflater: GzipInflater) throws -> [UInt8] {
        let length = length(ofBlock: index)
        let bytes: [UInt8]
        if blocks[index].packedLength == 0 {
            bytes = Array(packed)
        } else {
            do {
                bytes = try inflater.decodeWhole(packed, maximumSize: length)
            } catch {
                throw VCDIFFError(.corrupt, "block \(index) does not inflate to its length: \(error)")
            }
        }
        let matches = bytes.withUnsafeBytes { RollingChecksum($0).value == blocks[index].weak && Self.strongChecksum($0) == blocks[index].strong }
        guard bytes.count == length, matches else { throw VCDIFFError(.corrupt, "block \(index) does not match the block index") }
        return bytes
    }
}
