import CZlib

/// A VCDIFF section packed by xdelta3's LZMA secondary compressor (compressor id 2, RFC 3284
/// §4.3): the section's size as a VCDIFF integer, then the next piece of an .xz stream (XZ
/// Utils' file format) of one block, one LZMA2 filter and no check. Each kind of section (data,
/// instructions, addresses) is one stream across the delta's windows: the first section of a
/// kind holds the stream's headers, each one after it continues the LZMA2 data, and none holds
/// the stream's end (its index and footer).
public enum LZMASection {
    /// The compressor id xdelta3 writes in the VCDIFF header for it.
    public static let compressorID: UInt8 = 2

    /// The dictionary a stream may declare whatever the window limit. A stream holds at most
    /// twice its dictionary of history besides the section it is decoding, and never more than
    /// it has made, so a small target's streams cost little; Depot's packer declares 256 KiB even
    /// for a file of a few kilobytes, whose patch the client limits to the file's size.
    static let dictionaryAllowance = 1 << 20

    private static let streamMagic: [UInt8] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
    private static let lzma2FilterID = 0x21

    /// The bytes `section` unpacks to, at most `maximumSize` of them. `stream` is `nil` for the
    /// first section of its kind, and holds the stream for the next.
    /// - Throws: ``VCDIFFError`` `.corrupt` for a damaged section, `.limitExceeded` for one that
    ///   says it is larger than `maximumSize`, or whose dictionary is larger than
    ///   `maximumDictionary`.
    static func unpack(
        _ section: UnsafeRawBufferPointer,
        stream: inout LZMA2Decoder?,
        maximumSize: Int,
        maximumDictionary: Int
    ) throws(VCDIFFError) -> [UInt8] {
        var reader = ByteReader(section)
        let size = try reader.integer("a compressed section's size", limit: maximumSize)
        if stream == nil { stream = try start(&reader, maximumDictionary: maximumDictionary) }
        return try stream!.decode(UnsafeRawBufferPointer(rebasing: section[reader.position...]), expectedSize: size)
    }

    /// Reads the stream's headers, up to its LZMA2 data.
    private static func start(_ reader: inout ByteReader, maximumDictionary: Int) throws(VCDIFFError) -> LZMA2Decoder {
        let section = reader.bytes

        // Stream header: magic, two flag bytes (the check type), their CRC32.
        let header = try reader.skip(12, "an .xz stream header")
        guard zip(streamMagic, section[header..<header + 6]).allSatisfy({ $0 == $1 }) else { throw .packedSection("it is not an .xz stream") }
        guard section[header + 6] == 0, section[header + 7] & 0xF0 == 0 else { throw .packedSection("the .xz stream flags are unknown") }
        guard crc32(section, header + 6, count: 2) == littleEndian32(section, at: header + 8) else {
            throw .packedSection("the .xz stream header's CRC32 does not match")
        }

        // Block header: its size, flags, optional sizes, one filter (LZMA2), padding, CRC32.
        let blockStart = reader.position
        let sizeByte = Int(try reader.byte("an .xz block header"))
        guard sizeByte != 0 else { throw .packedSection("the .xz stream has no block") }
        let blockHeaderSize = (sizeByte + 1) * 4
        _ = try reader.skip(blockHeaderSize - 1, "an .xz block header")
        guard crc32(section, blockStart, count: blockHeaderSize - 4) == littleEndian32(section, at: blockStart + blockHeaderSize - 4) else {
            throw .packedSection("the .xz block header's CRC32 does not match")
        }
        var block = ByteReader(section, from: blockStart + 1, to: blockStart + blockHeaderSize - 4)
        let flags = try block.byte("an .xz block header")
        guard flags & 0x3F == 0 else { throw .packedSection("the .xz block has other filters than LZMA2, or unknown flags") }
        if flags & 0x40 != 0 { _ = try multibyte(&block) }
        if flags & 0x80 != 0 { _ = try multibyte(&block) }
        guard try multibyte(&block) == lzma2FilterID, try multibyte(&block) == 1 else { throw .packedSection("the .xz block's filter is not LZMA2") }
        let dictionaryByte = Int(try block.byte("LZMA2 properties"))
        guard dictionaryByte <= 40 else { throw .packedSection("the LZMA2 dictionary size is out of range") }
        let dictionarySize = dictionaryByte == 40 ? Int(UInt32.max) : (2 | dictionaryByte & 1) << (dictionaryByte / 2 + 11)
        guard dictionarySize <= maximumDictionary else {
            throw VCDIFFError(
                .limitExceeded,
                "a secondary compressor's dictionary of \(dictionarySize) bytes is over the limit of \(maximumDictionary)"
            )
        }
        while !block.isAtEnd {
            guard try block.byte("an .xz block header") == 0 else { throw .packedSection("the .xz block header's padding is not zero") }
        }

        return LZMA2Decoder(dictionarySize: dictionarySize)
    }

    /// An .xz multibyte integer: 7 bits a byte, least significant first, at most 9 bytes.
    private static func multibyte(_ reader: inout ByteReader) throws(VCDIFFError) -> Int {
        var value = 0
        for index in 0..<9 {
            let byte = try reader.byte("an .xz header")
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return value }
        }
        throw .packedSection("an .xz integer is too long")
    }

    private static func crc32(_ bytes: UnsafeRawBufferPointer, _ start: Int, count: Int) -> UInt32 {
        UInt32(CZlib.crc32(0, bytes.baseAddress!.advanced(by: start).assumingMemoryBound(to: Bytef.self), uInt(count)))
    }

    private static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at start: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[start + $1]) << (8 * $1) }
    }
}
