import CompressNIO
import DepotDelta
import NIOCore

/// Makes the gzip-compressed VCDIFF patch that turns one file into another.
///
/// The source is read whole and indexed; the target is read and encoded one window at a time,
/// and each window is compressed as soon as it is encoded, so memory stays near the source's
/// size plus its index. Blocking: run it on a thread pool.
public enum DeltaMaker {
    /// How patches are encoded.
    public struct Options: Sendable {
        /// See ``VCDIFFEncoder/Options/sourceStep``.
        public var indexStep: Int
        /// The zlib level of the patch's gzip stream.
        public var gzipLevel: Int32

        public init(indexStep: Int = 8, gzipLevel: Int32 = 9) {
            self.indexStep = indexStep
            self.gzipLevel = gzipLevel
        }
    }

    /// The gzip bytes of the patch from `source` to `target`, both in memory: patches of
    /// release documents and pages, whose few changed entries make a patch of a few hundred
    /// bytes where the document is many kilobytes.
    ///
    /// - Throws: ``DepotDelta/VCDIFFError`` for a source larger than the encoder indexes.
    public static func make(from source: [UInt8], to target: [UInt8], options: Options = .init()) throws -> ByteBuffer {
        let patch = try VCDIFFEncoder.encode(source: source, target: target, options: .init(sourceStep: options.indexStep))
        var input = ByteBuffer(bytes: patch)
        var window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        var compressed = ByteBuffer()
        let compressor = try ZlibCompressor(algorithm: .gzip, configuration: .init(compressionLevel: options.gzipLevel))
        try input.compressStream(with: compressor, window: &window, flush: .finish) { compressed.writeImmutableBuffer($0) }
        return compressed
    }

    /// Returns the gzip bytes of the patch from `source` to `target`, or `nil` as soon as they
    /// pass `limit` bytes: a patch that large is not worth keeping.
    ///
    /// - Throws: ``StoreError`` `.tooLarge`, having read nothing, for a source larger than the
    ///   encoder indexes (``VCDIFFEncoder/maximumSourceSize``).
    public static func make(
        from source: String,
        to target: String,
        limit: Int = .max,
        options: Options = .init()
    ) throws -> ByteBuffer? {
        let encoderOptions = VCDIFFEncoder.Options(sourceStep: options.indexStep)
        let sourceBytes = try BlockingFileReader.contents(of: source, maximumSize: VCDIFFEncoder.maximumSourceSize)
        var encoder = try VCDIFFEncoder(source: sourceBytes, options: encoderOptions)
        let reader = try BlockingFileReader(path: target)
        let compressor = try ZlibCompressor(algorithm: .gzip, configuration: .init(compressionLevel: options.gzipLevel))
        var window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        var compressed = ByteBuffer()
        func compress(_ bytes: [UInt8], flush: CompressNIOFlush) throws {
            var input = ByteBuffer(bytes: bytes)
            try input.compressStream(with: compressor, window: &window, flush: flush) { compressed.writeImmutableBuffer($0) }
        }

        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: encoderOptions.windowSize, alignment: 16)
        defer { chunk.deallocate() }
        try compress(VCDIFFEncoder.header, flush: .no)
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { break }
            var encoded: [UInt8] = []
            encoder.encodeWindow(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), into: &encoded)
            try compress(encoded, flush: .no)
            if compressed.readableBytes > limit { return nil }
            if count < chunk.count { break }
        }
        try compress([], flush: .finish)
        return compressed.readableBytes > limit ? nil : compressed
    }
}
