import CBrotli

/// Brotli (RFC 7932) through Debian's `libbrotli`: Depot's one binding of it. The codec is the
/// library's; this file only moves bytes in and out.
public enum Brotli {
    /// The settings of an encoding: `quality` 0 to 11, `window` the base-2 logarithm of the
    /// window, 10 to 24 (the large-window extension, which browsers do not read, is not used).
    public struct Settings: Sendable, Hashable {
        public var quality: Int
        public var window: Int

        public init(quality: Int = 11, window: Int = 24) {
            self.quality = quality
            self.window = window
        }
    }

    /// `bytes` encoded with `settings`.
    ///
    /// - Throws: ``CodecError`` when the settings are out of range or the library fails.
    public static func compress(_ bytes: some Collection<UInt8>, settings: Settings = .init()) throws(CodecError) -> [UInt8] {
        guard (0...11).contains(settings.quality), (10...24).contains(settings.window) else {
            throw CodecError("brotli quality \(settings.quality) or window \(settings.window) is out of range (0–11, 10–24)")
        }
        let input = Array(bytes)
        var size = BrotliEncoderMaxCompressedSize(input.count)
        // 0: the input is too large for a one-shot bound; the library's own rule.
        guard size > 0 else { throw CodecError("brotli cannot encode \(input.count) bytes in one piece") }
        var output = [UInt8](repeating: 0, count: size)
        let done = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                BrotliEncoderCompress(
                    Int32(settings.quality),
                    Int32(settings.window),
                    BROTLI_MODE_GENERIC,
                    source.count,
                    source.baseAddress,
                    &size,
                    target.baseAddress
                )
            }
        }
        guard done == BROTLI_TRUE else { throw CodecError("brotli failed to encode") }
        output.removeSubrange(size...)
        return output
    }

    /// The bytes `encoded` decodes to, at most `maximumBytes` of them: a bomb stops there.
    ///
    /// - Throws: ``CodecError`` for a stream that is not brotli, cut short, or longer decoded
    ///   than `maximumBytes`.
    public static func decompress(_ encoded: some Collection<UInt8>, maximumBytes: Int) throws(CodecError) -> [UInt8] {
        try CodecError.decodeWhole(encoded, by: try Decoder(), name: "brotli", maximumBytes: maximumBytes)
    }

    /// Decodes one brotli stream given in pieces, as they arrive: memory stays at the stream's
    /// window (at most 16 MiB), whatever the size decoded.
    public final class Decoder: StreamDecoder {
        private let state: OpaquePointer
        private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        public private(set) var isFinished = false

        public init() throws(CodecError) {
            guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw CodecError("brotli could not start") }
            self.state = state
        }

        deinit { BrotliDecoderDestroyInstance(state) }

        public func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
            guard !input.isEmpty else { return }
            guard !isFinished else { throw CodecError("brotli data is followed by other bytes") }
            var available = input.count
            var next = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            while true {
                var room = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { target in
                    var out = target.baseAddress
                    return BrotliDecoderDecompressStream(state, &available, &next, &room, &out, nil)
                }
                let produced = chunk.count - room
                if produced > 0 { try chunk.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS:
                    isFinished = true
                    guard available == 0 else { throw CodecError("brotli data is followed by other bytes") }
                    return
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return
                default: throw CodecError("brotli data is not valid")
                }
            }
        }
    }
}
