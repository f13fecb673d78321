import CZlib

/// Why a gzip stream could not be read or written.
public struct GzipError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { "gzip: \(message)" }
}

/// How a zlib stream is framed.
public enum ZlibFraming: Sendable {
    /// A gzip member (RFC 1952): header, deflate data, CRC-32 and length.
    case gzip
    /// Bare deflate data (RFC 1951), as each block of a block index's packed object is.
    case raw

    var windowBits: Int32 { self == .gzip ? 16 + MAX_WBITS : -MAX_WBITS }
}

/// Streaming gunzip (RFC 1952) over zlib. Hand-written: the client may depend on zlib and
/// swift-crypto only (it builds for iOS and macOS too), and no such package wraps zlib
/// (compress-nio needs SwiftNIO). It is Depot's one zlib binding: the store's gzip variants,
/// the server's documents and patches, and the client all use it.
public final class GzipInflater {
    private var stream = z_stream()
    private var finished = false
    private var buffer: [UInt8]

    /// - Parameters:
    ///   - bufferSize: The most output one step of decoding produces.
    ///   - framing: Gzip, or bare deflate data.
    public init(bufferSize: Int = 256 * 1024, framing: ZlibFraming = .gzip) throws(GzipError) {
        buffer = [UInt8](repeating: 0, count: bufferSize)
        let status = inflateInit2_(&stream, framing.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw GzipError("zlib could not start (\(status))") }
    }

    /// Starts a new stream, keeping zlib's state allocated: for many small streams.
    public func reset() {
        inflateReset(&stream)
        finished = false
    }

    deinit {
        inflateEnd(&stream)
    }

    /// Whether the gzip trailer has been read.
    public var isFinished: Bool { finished }

    /// Decodes `input`, handing each piece of output to `output`.
    public func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard input.count > 0 else { return }
        var consumed = 0
        repeat {
            consumed += try step(UnsafeRawBufferPointer(rebasing: input[consumed...]), output: output).consumed
        } while consumed < input.count && !finished
        if consumed < input.count { throw GzipError("data after the end of the gzip stream") }
    }

    /// Decodes `input`, one whole stream, from a fresh start (``reset()``): its content, at most
    /// `maximumSize` bytes of it. Throws ``GzipError`` when the stream is not whole, is followed
    /// by other data, or inflates past `maximumSize` (a bomb), as soon as it does. Unlike
    /// ``decode(_:output:)``, it steps on while output is pending after the last input byte, so a
    /// buffer the size of the content is enough.
    public func decodeWhole(_ input: UnsafeRawBufferPointer, maximumSize: Int) throws -> [UInt8] {
        reset()
        var content: [UInt8] = []
        var consumed = 0
        while !finished {
            let (used, produced) = try step(UnsafeRawBufferPointer(rebasing: input[consumed...])) { piece in
                guard piece.count <= maximumSize - content.count else { throw GzipError("the data inflates past \(maximumSize) bytes") }
                content.append(contentsOf: piece)
            }
            consumed += used
            if used == 0, produced == 0 { break }
        }
        guard finished else { throw GzipError("the data is truncated") }
        guard consumed == input.count else { throw GzipError("data after the end of the stream") }
        return content
    }

    /// Decodes from the start of `input` until the output fills the buffer (`bufferSize` bytes)
    /// or the input runs out, and hands that output to `output`: a caller that writes each
    /// piece before the next step holds at most one buffer of output, however well the data
    /// compresses. More output may be pending while `produced` equals the buffer's size, even
    /// with all of the input consumed.
    public func step(
        _ input: UnsafeRawBufferPointer,
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (consumed: Int, produced: Int) {
        guard !finished else {
            if input.isEmpty { return (0, 0) }
            throw GzipError("data after the end of the gzip stream")
        }
        stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.avail_in = uInt(input.count)
        defer { stream.next_in = nil }
        let produced: Int = try buffer.withUnsafeMutableBytes { outputBytes in
            stream.next_out = outputBytes.bindMemory(to: Bytef.self).baseAddress
            stream.avail_out = uInt(outputBytes.count)
            let status = inflate(&stream, Z_NO_FLUSH)
            switch status {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: finished = true
            default: throw GzipError("the data is corrupt (zlib \(status))")
            }
            return outputBytes.count - Int(stream.avail_out)
        }
        if produced > 0 { try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) } }
        return (input.count - Int(stream.avail_in), produced)
    }
}

/// Streaming gzip (RFC 1952) over zlib: see ``GzipInflater``.
public final class GzipDeflater {
    private var stream = z_stream()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// - Parameters:
    ///   - level: zlib's compression level, 1–9.
    ///   - framing: Gzip, or bare deflate data.
    public init(level: Int32, framing: ZlibFraming = .gzip) throws(GzipError) {
        // Memory level 8 is zlib's default.
        let status = deflateInit2_(
            &stream,
            level,
            Z_DEFLATED,
            framing.windowBits,
            8,
            Z_DEFAULT_STRATEGY,
            ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else { throw GzipError("zlib could not start (\(status))") }
    }

    deinit {
        deflateEnd(&stream)
    }

    /// Starts a new stream, keeping zlib's state allocated: for many small streams.
    public func reset() {
        deflateReset(&stream)
    }

    /// Compresses `input`, handing each piece of output to `output`; `finish` ends the stream.
    public func compress(_ input: UnsafeRawBufferPointer, finish: Bool = false, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.avail_in = uInt(input.count)
        defer { stream.next_in = nil }
        var done = false
        repeat {
            let produced: Int = try buffer.withUnsafeMutableBytes { outputBytes in
                stream.next_out = outputBytes.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(outputBytes.count)
                let status = deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                switch status {
                case Z_OK, Z_BUF_ERROR: break
                case Z_STREAM_END: done = true
                default: throw GzipError("zlib failed (\(status))")
                }
                return outputBytes.count - Int(stream.avail_out)
            }
            if produced > 0 { try buffer.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) } }
            // Without finishing, zlib is done once it has taken all the input and has room left.
            if !finish, stream.avail_in == 0, stream.avail_out > 0 { done = true }
        } while !done
    }
}

/// Whole buffers to and from gzip, over ``GzipDeflater`` and ``GzipInflater``.
public enum Gzip {
    /// `bytes` as one gzip member, at zlib's `level` (1–9; 6 is zlib's default).
    public static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = 6) throws -> [UInt8] {
        var compressed: [UInt8] = []
        try GzipDeflater(level: level).compress(bytes, finish: true) { compressed.append(contentsOf: $0) }
        return compressed
    }

    /// The content of the gzip member `bytes`, at most `maximumSize` bytes of it; throws
    /// ``GzipError`` when it is not whole, or inflates past `maximumSize` (a bomb), as soon as it
    /// does.
    public static func decompress(_ bytes: UnsafeRawBufferPointer, maximumSize: Int = .max) throws -> [UInt8] {
        try GzipInflater().decodeWhole(bytes, maximumSize: maximumSize)
    }
}
