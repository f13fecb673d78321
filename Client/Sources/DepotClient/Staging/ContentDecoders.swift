import DepotDelta
import DepotHTTP

#if os(Linux)
import DepotCodecs
#elseif canImport(Compression)
import Compression
#endif

/// A decoder of a download that came in a content coding, given in pieces as they arrive.
protocol ContentDecoder: AnyObject {
    /// Whether the stream ended.
    var isFinished: Bool { get }
    /// Decodes `input`, giving `output` each piece decoded (valid only during the call).
    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Tells the decoder the input is over: one that holds output back until then gives it, and
    /// learns whether the stream ended (``isFinished``).
    func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws
}

extension ContentDecoder {
    /// Decoders that give all they can as input arrives have nothing to add.
    func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {}
}

extension GzipInflater: ContentDecoder {}

/// The content codings this client decodes, and their decoders: gzip everywhere (zlib);
/// brotli through `libbrotli` on Linux and Apple's Compression framework on Apple platforms;
/// zstd through `libzstd` on Linux (Apple's Compression has no zstd).
enum ContentDecoders {
    /// What ``ReleaseEntry/download(decoding:)`` is given: the codings a whole file may come in.
    static let decodable: Set<ContentCoding> = {
        #if os(Linux)
        [.gzip, .br, .zstd]
        #elseif canImport(Compression)
        [.gzip, .br]
        #else
        [.gzip]
        #endif
    }()

    /// A decoder of `coding`; `nil` for identity.
    static func decoder(for coding: ContentCoding) throws -> (any ContentDecoder)? {
        switch coding {
        case .identity: return nil
        case .gzip: return try GzipInflater()
        case .br:
            #if os(Linux)
            return try Brotli.Decoder()
            #elseif canImport(Compression)
            return try CompressionDecoder(algorithm: COMPRESSION_BROTLI)
            #else
            throw CodecFailure(message: "this platform does not decode brotli")
            #endif
        case .zstd:
            #if os(Linux)
            return try Zstd.Decoder()
            #else
            throw CodecFailure(message: "this platform does not decode zstd")
            #endif
        }
    }
}

extension ContentDecoders {
    /// Whether `error` is a decoder's refusal of its data (not a file's or a check's error).
    static func isDecodingError(_ error: any Error) -> Bool {
        #if os(Linux)
        if error is CodecError { return true }
        #endif
        return error is GzipError || error is CodecFailure
    }
}

/// Why a download's coding could not be decoded, in one line.
struct CodecFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

#if os(Linux)
extension Brotli.Decoder: ContentDecoder {}
extension Zstd.Decoder: ContentDecoder {}
#elseif canImport(Compression)
/// A stream of Apple's Compression framework, decoding (brotli: macOS 12, iOS 15 and later).
final class CompressionDecoder: ContentDecoder {
    private let stream = UnsafeMutablePointer<compression_stream>.allocate(capacity: 1)
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var isFinished = false
    /// Whether `stream` was set up, and so must be torn down.
    private var started = false

    init(algorithm: compression_algorithm) throws {
        // Every stored property has its value: a throw below still runs `deinit`.
        guard compression_stream_init(stream, COMPRESSION_STREAM_DECODE, algorithm) == COMPRESSION_STATUS_OK else {
            throw CodecFailure(message: "the decoder could not start")
        }
        started = true
    }

    deinit {
        if started { compression_stream_destroy(stream) }
        stream.deallocate()
    }

    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        guard !isFinished else { throw CodecFailure(message: "the data goes on after its end") }
        stream.pointee.src_ptr = base.assumingMemoryBound(to: UInt8.self)
        stream.pointee.src_size = input.count
        while true {
            let (status, produced) = buffer.withUnsafeMutableBufferPointer { target in
                stream.pointee.dst_ptr = target.baseAddress!
                stream.pointee.dst_size = target.count
                let status = compression_stream_process(stream, 0)
                return (status, target.count - stream.pointee.dst_size)
            }
            if produced > 0 { try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
            switch status {
            case COMPRESSION_STATUS_END:
                isFinished = true
                guard stream.pointee.src_size == 0 else { throw CodecFailure(message: "the data goes on after its end") }
                return
            case COMPRESSION_STATUS_OK:
                if stream.pointee.src_size == 0, produced < buffer.count { return }
            default:
                throw CodecFailure(message: "the data is not valid")
            }
        }
    }

    /// Compression reports a stream's end only once told the input is over
    /// (`COMPRESSION_STREAM_FINALIZE`): asked until it says END, or makes no more progress
    /// (a stream cut short, which ``isFinished`` then says).
    func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws {
        stream.pointee.src_size = 0
        while !isFinished {
            let (status, produced) = buffer.withUnsafeMutableBufferPointer { target in
                stream.pointee.dst_ptr = target.baseAddress!
                stream.pointee.dst_size = target.count
                let status = compression_stream_process(stream, Int32(COMPRESSION_STREAM_FINALIZE.rawValue))
                return (status, target.count - stream.pointee.dst_size)
            }
            if produced > 0 { try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<produced])) } }
            switch status {
            case COMPRESSION_STATUS_END: isFinished = true
            case COMPRESSION_STATUS_OK where produced > 0: continue
            case COMPRESSION_STATUS_OK: return
            default: throw CodecFailure(message: "the data is not valid")
            }
        }
    }
}
#endif
