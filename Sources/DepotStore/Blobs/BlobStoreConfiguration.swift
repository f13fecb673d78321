/// How the blob store makes gzip variants.
public struct BlobStoreConfiguration: Hashable, Sendable {
    /// zlib compression level, 1 (fastest) to 9 (smallest).
    public var gzipLevel: Int
    /// The fraction of the size the gzip variant must save to be kept: with 0.05 a variant larger
    /// than 95 % of the original is dropped, so already-compressed content (PNG, JPEG, zip) is
    /// served as it is. The small files of an upload batch are deflated only where a sample
    /// says they may save this share (``CompressionSample``).
    public var gzipMinimumSavings: Double

    public init(gzipLevel: Int = 6, gzipMinimumSavings: Double = 0.05) {
        self.gzipLevel = gzipLevel
        self.gzipMinimumSavings = gzipMinimumSavings
    }
}
