/// A hash index of the source: the hash of the `hashLength` bytes at every `step`-th position,
/// with a chain through earlier positions of the same bucket.
///
/// Memory: 4 bytes a position, and 4 bytes a bucket (a power of two at least half the number
/// of positions); with the default step of 8, at most about 0.75 source sizes.
struct SourceIndex: Sendable {
    /// How many bytes are hashed: the shortest match the index finds. Shorter (8 to 12) was
    /// measured: more candidates, most too short to pay for their COPY; the patches grew.
    static let hashLength = 16
    let step: Int
    let shift: Int
    /// `buckets[hash]` is one plus the newest indexed block in the bucket; 0 means empty.
    let buckets: [UInt32]
    /// `chain[block]` is one plus the previous block in the same bucket; 0 ends the chain.
    let chain: [UInt32]

    /// The largest source the index can hold: positions are stored in 32 bits.
    static let maximumSourceSize = Int(UInt32.max) - 1

    /// - Precondition: `source.count <= maximumSourceSize`; ``VCDIFFEncoder/init(source:options:)``
    ///   checks it and throws.
    init(source: UnsafeRawBufferPointer, step: Int) {
        self.step = step
        let blocks = source.count >= Self.hashLength ? (source.count - Self.hashLength) / step + 1 : 0
        var bits = 10
        while 4 << bits < blocks { bits += 1 }
        let shift = 64 - bits
        self.shift = shift
        var buckets = [UInt32](repeating: 0, count: 1 << bits)
        var chain = [UInt32](repeating: 0, count: blocks)
        buckets.withUnsafeMutableBufferPointer { buckets in
            chain.withUnsafeMutableBufferPointer { chain in
                for block in 0..<blocks {
                    let hash = Self.hash(source.baseAddress! + block * step, shift: shift)
                    chain[block] = buckets[hash]
                    buckets[hash] = UInt32(block + 1)
                }
            }
        }
        self.buckets = buckets
        self.chain = chain
    }

    /// The bucket of the `hashLength` bytes at `bytes`.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawPointer, shift: Int) -> Int {
        let low = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let mixed = ((low &* 0x9E37_79B9_7F4A_7C15) ^ high) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: mixed >> UInt64(shift))
    }
}

/// How many leading bytes of `a` and `b` agree, up to `limit`; compares 8 bytes at a time.
@inline(__always)
func commonPrefixLength(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, limit: Int) -> Int {
    var length = 0
    while length + 8 <= limit {
        let x = UInt64(littleEndian: a.loadUnaligned(fromByteOffset: length, as: UInt64.self))
        let y = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: length, as: UInt64.self))
        if x != y { return length + (x ^ y).trailingZeroBitCount / 8 }
        length += 8
    }
    while length < limit, a.load(fromByteOffset: length, as: UInt8.self) == b.load(fromByteOffset: length, as: UInt8.self) {
        length += 1
    }
    return length
}
