/// Which page of a release holds a path, and how many pages a release has.
///
/// A path's *bucket* is a 32-bit hash of its collision key (``PortablePath/collisionKey(_:)``),
/// so paths that could collide on a client share a page. A release with `pageBits` bits has
/// `2^pageBits` pages, and a path's page is the top `pageBits` bits of its bucket: a range of
/// buckets, which the catalog reads with one indexed query.
public enum ReleasePaging {
    /// Pages grow past this many entries on average only until the next re-paging.
    public static let maximumAverageEntries = 64
    /// Pages shrink (fewer bits) when they hold fewer than this many entries on average.
    public static let minimumAverageEntries = 16
    /// At most 2^16 pages.
    public static let maximumBits = 16

    /// The bucket of a path: 64-bit FNV-1a of its collision key's UTF-8, finished by SplitMix64's
    /// mixer so that the top bits are as good as the bottom ones, then the top 32 bits. A stable
    /// hash, written by hand, because the standard library's `Hasher` is seeded per process.
    public static func bucket(ofPath path: String) -> UInt32 {
        bucket(ofKey: PortablePath.collisionKey(path))
    }

    /// The bucket of a collision key.
    public static func bucket(ofKey key: String) -> UInt32 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return UInt32(truncatingIfNeeded: hash >> 32)
    }

    /// The page of `bucket` in a release with `bits` bits.
    public static func page(ofBucket bucket: UInt32, bits: Int) -> Int {
        bits == 0 ? 0 : Int(bucket >> UInt32(32 - bits))
    }

    /// The buckets of page `page`, inclusive.
    public static func buckets(ofPage page: Int, bits: Int) -> ClosedRange<UInt32> {
        guard bits > 0 else { return 0...UInt32.max }
        let shift = UInt32(32 - bits)
        let first = UInt32(page) << shift
        return first...(first | ((1 << shift) - 1))
    }

    /// The bits for a release of `fileCount` files whose parent had `previous` bits: unchanged
    /// while pages average between ``minimumAverageEntries`` and ``maximumAverageEntries``, so a
    /// catalog that hovers near a boundary does not re-page at every release.
    public static func bits(forFileCount fileCount: Int, previous: Int) -> Int {
        var bits = min(max(previous, 0), maximumBits)
        while bits < maximumBits, fileCount > maximumAverageEntries << bits { bits += 1 }
        while bits > 0, fileCount < minimumAverageEntries << bits { bits -= 1 }
        return bits
    }
}
