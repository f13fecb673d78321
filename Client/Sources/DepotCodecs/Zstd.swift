import CZstd

/// Zstandard (RFC 8878) through Debian's `libzstd`: Depot's one binding of it. The codec is the
/// library's; this file only moves bytes in and out.
public enum Zstd {
    /// The settings of an encoding: `level` 1 to 19 (`zstd -19`), and `longWindow` the base-2
    /// logarithm of the long-distance window (`--long=27`), or `nil` for none. A window over
    /// 27 needs `--long` (or `--memory`) on the decoding side too.
    public struct Settings: Sendable, Hashable {
        public var level: Int
        public var longWindow: Int?

        public init(level: Int = 19, longWindow: Int? = 27) {
            self.level = level
            self.longWindow = longWindow
        }
    }

    /// `bytes` encoded as one frame with `settings`, its content size in the header.
    ///
    /// - Throws: ``CodecError`` when the settings are out of range or the library fails.
    public static func compress(_ bytes: some Collection<UInt8>, settings: Settings = .init()) throws(CodecError) -> [UInt8] {
        guard (1...19).contains(settings.level), settings.longWindow.map({ (10...27).contains($0) }) ?? true else {
            throw CodecError("zstd level \(settings.level) or long window \(settings.longWindow ?? 0) is out of range (1–19, 10–27)")
        }
        guard let context = ZSTD_createCCtx() else { throw CodecError("zstd could not start") }
        defer { ZSTD_freeCCtx(context) }
        var parameters: [(ZSTD_cParameter, Int32)] = [(ZSTD_c_compressionLevel, Int32(settings.level)), (ZSTD_c_checksumFlag, 1)]
        if let window = settings.longWindow {
            parameters += [(ZSTD_c_enableLongDistanceMatching, 1), (ZSTD_c_windowLog, Int32(window))]
        }
        for (parameter, value) in parameters where ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value)) != 0 {
            throw CodecError("zstd refused a setting")
        }
        let input = Array(bytes)
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let size = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                ZSTD_compress2(context, target.baseAddress, target.count, source.baseAddress, source.count)
            }
        }
        guard ZSTD_isError(size) == 0 else { throw CodecError("zstd failed to encode: \(String(cString: ZSTD_getErrorName(size)))") }
        output.removeSubrange(size...)
        return output
    }

    /// The bytes `encoded` decodes to, at most `maximumBytes` of them: a bomb stops there.
    /// Windows up to 2^27 bytes are read (what `--long=27` makes).
    ///
    /// - Throws: ``CodecError`` for data that is not zstd, cut short, or longer decoded than
    ///   `maximumBytes`.
    public static func decompress(_ encoded: some Collection<UInt8>, maximumBytes: Int) throws(CodecError) -> [UInt8] {
        try CodecError.decodeWhole(encoded, by: try Decoder(), name: "zstd", maximumBytes: maximumBytes)
    }

    /// Decodes zstd frames given in pieces, as they arrive: memory stays at the frame's window
    /// (at most 2^27 bytes, and never more than the frame's content), whatever the size decoded.
    public final class Decoder: StreamDecoder {
        private let context: OpaquePointer
        private var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        /// Whether the last frame given ended (and no other began).
        public private(set) var isFinished = false

        public init() throws(CodecError) {
            guard let context = ZSTD_createDCtx() else { throw CodecError("zstd could not start") }
            self.context = context
            _ = ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 27)
        }

        deinit { ZSTD_freeDCtx(context) }

        public func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard !input.isEmpty else { return }
            var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
            while true {
                let (result, produced) = chunk.withUnsafeMutableBytes { target in
                    var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                    let result = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
                    return (result, outBuffer.pos)
                }
                guard ZSTD_isError(result) == 0 else { throw CodecError("zstd data is not valid: \(String(cString: ZSTD_getErrorName(result)))") }
                if produced > 0 { try chunk.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
                isFinished = result == 0
                // All input taken and the output not full: the decoder wants more input.
                if inBuffer.pos == inBuffer.size, produced < chunk.count { return }
            }
        }
    }
}
