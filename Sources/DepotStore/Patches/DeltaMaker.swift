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
        /// Whether the VCDIFF's sections are packed with LZMA as xdelta3 packs them
        /// (``LZMASectionPacker``): patches 8 to 21% smaller, which clients built before it
        /// cannot apply (they fall back to the whole file).
        public var packsSections: Bool

        public init(indexStep: Int = 8, gzipLevel: Int32 = 9, packsSections: Bool = true) {
            self.indexStep = indexStep
            self.gzipLevel = gzipLevel
            self.packsSections = packsSections
        }

        /// The packer of one patch.
        func packer() -> (any SectionPacker)? { packsSections ? LZMASectionPacker() : nil }
    }

    /// The gzip bytes of the patch from `source` to `target`, both in memory: patches of
    /// release documents and pages, whose few changed entries make a patch of a few hundred
    /// bytes where the document is many kilobytes.
    ///
    /// - Throws: ``DepotDelta/VCDIFFError`` for a source larger than the encoder indexes.
    public static func make(from source: [UInt8], to target: [UInt8], options: Options = .init()) throws -> ByteBuffer {
        ByteBuffer(
            bytes: try GzipVCDIFF.make(from: source, to: target, indexStep: options.indexStep, level: options.gzipLevel, packer: options.packer())
        )
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
        let sourceBytes = try BlockingFileReader.contents(of: source, maximumSize: VCDIFFEncoder.maximumSourceSize)
        let reader = try BlockingFileReader(path: target)
        var compressed = ByteBuffer()
        let append: (UnsafeRawBufferPointer) -> Void = { compressed.writeBytes($0) }
        var encoder = try GzipVCDIFF.Encoder(
            source: sourceBytes,
            indexStep: options.indexStep,
            level: options.gzipLevel,
            packer: options.packer(),
            output: append
        )
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: encoder.windowSize, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { break }
            try encoder.encode(window: UnsafeRawBufferPointer(rebasing: chunk[0..<count]), output: append)
            if compressed.readableBytes > limit { return nil }
            if count < chunk.count { break }
        }
        try encoder.finish(output: append)
        return compressed.readableBytes > limit ? nil : compressed
    }
}
