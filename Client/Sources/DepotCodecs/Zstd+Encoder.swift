import CZstd

extension Zstd {
    /// Encodes one zstd frame from input given in pieces (`ZSTD_compressStream2`), its content
    /// size in the header when `size` is given: memory stays at the window (at most 2^`longWindow`
    /// bytes, and no more than the content when its size is given) and the level's tables.
    public final class Encoder: StreamEncoder {
        private let context: OpaquePointer
        private var chunk = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        private var isFinished = false

        /// - Parameter size: The input's whole size, when known: written in the frame's header,
        ///   and the window shrinks to it.
        /// - Throws: ``CodecError`` when the settings are out of range or the library cannot start.
        public init(settings: Settings, size: Int64? = nil) throws(CodecError) {
            guard (1...19).contains(settings.level), settings.longWindow.map({ (10...27).contains($0) }) ?? true else {
                throw CodecError("zstd level \(settings.level) or long window \(settings.longWindow ?? 0) is out of range (1–19, 10–27)")
            }
            guard let context = ZSTD_createCCtx() else { throw CodecError("zstd could not start") }
            self.context = context
            var parameters: [(ZSTD_cParameter, Int32)] = [(ZSTD_c_compressionLevel, Int32(settings.level)), (ZSTD_c_checksumFlag, 1)]
            if let window = settings.longWindow {
                parameters += [(ZSTD_c_enableLongDistanceMatching, 1), (ZSTD_c_windowLog, Int32(window))]
            }
            for (parameter, value) in parameters where ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value)) != 0 {
                ZSTD_freeCCtx(context)
                throw CodecError("zstd refused a setting")
            }
            if let size, size >= 0, ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(context, UInt64(size))) != 0 {
                ZSTD_freeCCtx(context)
                throw CodecError("zstd refused the content's size")
            }
        }

        deinit { ZSTD_freeCCtx(context) }

        public func encode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard !input.isEmpty else { return }
            try run(ZSTD_e_continue, input, output: output)
        }

        public func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
            try run(ZSTD_e_end, UnsafeRawBufferPointer(start: nil, count: 0), output: output)
            isFinished = true
        }

        /// Feeds `input` with `directive` until the library has taken it all and, for the end,
        /// flushed the frame.
        private func run(_ directive: ZSTD_EndDirective, _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard !isFinished else { throw CodecError("zstd frame already ended") }
            var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
            while true {
                let (remaining, produced) = chunk.withUnsafeMutableBytes { target in
                    var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                    let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive)
                    return (remaining, outBuffer.pos)
                }
                guard ZSTD_isError(remaining) == 0 else {
                    throw CodecError("zstd failed to encode: \(String(cString: ZSTD_getErrorName(remaining)))")
                }
                if produced > 0 { try chunk.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
                if directive == ZSTD_e_end ? remaining == 0 : inBuffer.pos == inBuffer.size { return }
            }
        }
    }
}
