import CBrotli

extension Brotli {
    /// Encodes one brotli stream from input given in pieces (`BrotliEncoderCompressStream`):
    /// memory stays at the window's tables (about 10× the window at quality 10 and 11), not the
    /// input's size; the bytes are those of ``Brotli/compress(_:settings:)`` at the same settings,
    /// within the library's block choices.
    public final class Encoder: StreamEncoder {
        private let state: OpaquePointer
        private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        private var isFinished = false

        /// - Parameter sizeHint: The input's whole size, when known: the library sizes its
        ///   tables by it.
        /// - Throws: ``CodecError`` when the settings are out of range or the library cannot start.
        public init(settings: Settings, sizeHint: Int64? = nil) throws(CodecError) {
            guard (0...11).contains(settings.quality), (10...24).contains(settings.window) else {
                throw CodecError("brotli quality \(settings.quality) or window \(settings.window) is out of range (0–11, 10–24)")
            }
            guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else { throw CodecError("brotli could not start") }
            self.state = state
            var parameters = [(BROTLI_PARAM_QUALITY, UInt32(settings.quality)), (BROTLI_PARAM_LGWIN, UInt32(settings.window))]
            if let sizeHint, sizeHint > 0 { parameters.append((BROTLI_PARAM_SIZE_HINT, UInt32(min(sizeHint, 1 << 30)))) }
            for (parameter, value) in parameters where BrotliEncoderSetParameter(state, parameter, value) != BROTLI_TRUE {
                BrotliEncoderDestroyInstance(state)
                throw CodecError("brotli refused a setting")
            }
        }

        deinit { BrotliEncoderDestroyInstance(state) }

        public func encode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard !input.isEmpty else { return }
            try run(BROTLI_OPERATION_PROCESS, input, output: output)
        }

        public func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
            try run(BROTLI_OPERATION_FINISH, UnsafeRawBufferPointer(start: nil, count: 0), output: output)
            isFinished = true
        }

        /// Feeds `input` with `operation` until the library has taken it all and, for the
        /// finish, written the stream's end.
        private func run(_ operation: BrotliEncoderOperation, _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws
        {
            guard !isFinished else { throw CodecError("brotli stream already ended") }
            var available = input.count
            var next = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            while true {
                var room = chunk.count
                let done = chunk.withUnsafeMutableBufferPointer { target in
                    var out = target.baseAddress
                    return BrotliEncoderCompressStream(state, operation, &available, &next, &room, &out, nil)
                }
                guard done == BROTLI_TRUE else { throw CodecError("brotli failed to encode") }
                let produced = chunk.count - room
                if produced > 0 { try chunk.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
                let pending = BrotliEncoderHasMoreOutput(state) == BROTLI_TRUE
                if operation == BROTLI_OPERATION_FINISH {
                    if BrotliEncoderIsFinished(state) == BROTLI_TRUE { return }
                } else if available == 0, !pending {
                    return
                }
            }
        }
    }
}
