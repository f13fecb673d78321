/// A patch as Depot stores and serves it: a VCDIFF delta (RFC 3284) in a gzip stream (RFC 1952),
/// which `gunzip | xdelta3 -d -s OLD` also reads. The one place both halves are put together:
/// the server makes patches here and the client applies them here.
public enum GzipVCDIFF {
    /// Makes a patch one target window at a time, compressing each as soon as it is encoded, so
    /// memory stays near the source's size plus its index.
    public struct Encoder {
        private var encoder: VCDIFFEncoder
        private let deflater: GzipDeflater
        private let packer: (any SectionPacker)?
        /// The largest window ``encode(window:output:)`` takes.
        public var windowSize: Int { encoder.options.windowSize }

        /// Indexes `source` and starts the stream with the VCDIFF header.
        /// - Parameters:
        ///   - indexStep: See ``VCDIFFEncoder/Options/sourceStep``.
        ///   - level: The zlib level of the gzip stream.
        ///   - packer: The secondary compressor of the VCDIFF's sections, if any.
        /// - Throws: ``VCDIFFError`` for a source larger than the encoder indexes.
        public init(
            source: [UInt8],
            indexStep: Int = 8,
            level: Int32 = 9,
            packer: (any SectionPacker)? = nil,
            output: (UnsafeRawBufferPointer) throws -> Void
        ) throws {
            encoder = try VCDIFFEncoder(source: source, options: .init(sourceStep: indexStep))
            deflater = try GzipDeflater(level: level)
            self.packer = packer
            try VCDIFFEncoder.header(compressorID: packer?.compressorID).withUnsafeBytes { try deflater.compress($0, output: output) }
        }

        /// Encodes the next `window` of the target (at most ``windowSize`` bytes).
        public mutating func encode(window: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            try encoder.encodeWindow(window, packer: packer) { try deflater.compress($0, output: output) }
        }

        /// Ends the gzip stream.
        public func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
            try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, output: output)
        }
    }

    /// The patch from `source` to `target`, both in memory.
    public static func make(
        from source: [UInt8],
        to target: [UInt8],
        indexStep: Int = 8,
        level: Int32 = 9,
        packer: (any SectionPacker)? = nil
    ) throws -> [UInt8] {
        var patch: [UInt8] = []
        let append: (UnsafeRawBufferPointer) -> Void = { patch.append(contentsOf: $0) }
        var encoder = try Encoder(source: source, indexStep: indexStep, level: level, packer: packer, output: append)
        try target.withUnsafeBytes { target in
            var start = 0
            repeat {
                let end = min(target.count, start + encoder.windowSize)
                try encoder.encode(window: UnsafeRawBufferPointer(rebasing: target[start..<end]), output: append)
                start = end
            } while start < target.count
        }
        try encoder.finish(output: append)
        return patch
    }

    /// The VCDIFF inside a patch's gzip stream. A VCDIFF is never much larger than the target it
    /// makes; a stream that inflates past `maximumTargetSize` plus an eighth and 1 MiB is a bomb.
    /// - Throws: ``GzipError`` for a damaged, truncated or too large stream.
    public static func inflate(_ patch: UnsafeRawBufferPointer, maximumTargetSize: Int) throws -> [UInt8] {
        try Gzip.decompress(patch, maximumSize: maximumTargetSize + maximumTargetSize / 8 + (1 << 20))
    }

    /// Writes to `output` what `patch` makes of `source`.
    /// - Throws: ``GzipError`` or ``VCDIFFError``.
    public static func apply(
        _ patch: UnsafeRawBufferPointer,
        source: UnsafeRawBufferPointer,
        into output: inout some VCDIFFOutput,
        maximumTargetSize: Int
    ) throws {
        let delta = try inflate(patch, maximumTargetSize: maximumTargetSize)
        let limits = VCDIFFDecoder.Limits(maximumWindowSize: min(64 << 20, max(1, maximumTargetSize)), maximumTargetSize: maximumTargetSize)
        try delta.withUnsafeBytes { try VCDIFFDecoder.decode($0, source: source, into: &output, limits: limits) }
    }

    /// What `patch` makes of `source`, in memory.
    public static func apply(_ patch: UnsafeRawBufferPointer, source: UnsafeRawBufferPointer, maximumTargetSize: Int) throws -> [UInt8] {
        var target: [UInt8] = []
        try apply(patch, source: source, into: &target, maximumTargetSize: maximumTargetSize)
        return target
    }
}
