import CZlib
import Foundation

/// Streaming gunzip over zlib. Hand-written: the client may depend on Foundation, zlib and
/// swift-crypto only (it builds for iOS and macOS too), and no such package wraps zlib.
final class GzipDecoder {
    private var stream = z_stream()
    private var finished = false

    init() throws(SyncError) {
        // 16 + MAX_WBITS: expect a gzip header and trailer (RFC 1952).
        let status = inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw SyncError(.corrupt, "zlib could not start (\(status))") }
    }

    deinit {
        inflateEnd(&stream)
    }

    /// Whether the gzip trailer has been read.
    var isFinished: Bool { finished }

    /// Decodes `input`, handing each piece of output to `output`.
    func decode(_ input: Data, output: (Data) throws -> Void) throws {
        guard !input.isEmpty else { return }
        guard !finished else { throw SyncError(.corrupt, "data after the end of the gzip stream") }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        try input.withUnsafeBytes { (inputBytes: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: inputBytes.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(inputBytes.count)
            repeat {
                let produced: Int = try buffer.withUnsafeMutableBytes { outputBytes in
                    stream.next_out = outputBytes.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(outputBytes.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    switch status {
                    case Z_OK, Z_BUF_ERROR: break
                    case Z_STREAM_END: finished = true
                    default: throw SyncError(.corrupt, "the gzip data is corrupt (zlib \(status))")
                    }
                    return outputBytes.count - Int(stream.avail_out)
                }
                if produced > 0 { try output(Data(buffer[0..<produced])) }
            } while stream.avail_in > 0 && !finished
            if stream.avail_in > 0 { throw SyncError(.corrupt, "data after the end of the gzip stream") }
            stream.next_in = nil
        }
    }
}
