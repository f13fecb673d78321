import CZlib

/// Decodes RFC 3284 VCDIFF deltas: rebuilds a target from a source and a delta.
///
/// It reads what RFC 3284 defines (the default and custom code tables, `VCD_SOURCE` and
/// `VCD_TARGET` windows, overlapping copies) plus xdelta3's two extensions (an application
/// header, a per-window Adler-32, which is checked), and sections packed by xdelta3's LZMA
/// secondary compressor (``LZMASection``), which `xdelta3 -9` uses by default. Its other
/// secondary compressors (DJW, FGK) are refused.
///
/// Built for hostile input: every length is checked against what remains of the delta, every
/// address against what is decoded so far, and allocation is bounded by ``Limits``.
public enum VCDIFFDecoder {
    /// What a delta may ask of the decoder.
    public struct Limits: Sendable {
        /// The largest target window, which the decoder holds in memory: 64 MiB by default.
        public var maximumWindowSize: Int
        /// The largest whole target.
        public var maximumTargetSize: Int

        public init(maximumWindowSize: Int = 64 << 20, maximumTargetSize: Int = Int(Int32.max)) {
            self.maximumWindowSize = maximumWindowSize
            self.maximumTargetSize = maximumTargetSize
        }
    }

    /// Decodes `delta` against `source`, writing the target to `output`.
    public static func decode(
        _ delta: UnsafeRawBufferPointer,
        source: UnsafeRawBufferPointer,
        into output: inout some VCDIFFOutput,
        limits: Limits = .init()
    ) throws {
        var reader = ByteReader(delta)
        let (table, compressor) = try readHeader(&reader, allowCustomTable: true)
        var streams = SectionStreams(isEnabled: compressor != nil)
        var windows = 0
        while !reader.isAtEnd {
            try decodeWindow(&reader, table: table, streams: &streams, source: source, output: &output, limits: limits)
            // Every window but one makes at least a byte: the work a delta asks for follows the
            // target it makes, not how many windows it holds.
            windows += 1
            guard windows <= output.count + 1 else { throw VCDIFFError(.corrupt, "the delta has empty windows") }
        }
    }

    /// Decodes `delta` against `source` in memory.
    public static func decode(_ delta: [UInt8], source: [UInt8], limits: Limits = .init()) throws -> [UInt8] {
        var target: [UInt8] = []
        try delta.withUnsafeBytes { delta in
            try source.withUnsafeBytes { source in
                try decode(delta, source: source, into: &target, limits: limits)
            }
        }
        return target
    }

    /// The code table, and the secondary compressor's id if the header names one.
    static func readHeader(_ reader: inout ByteReader, allowCustomTable: Bool) throws -> (CodeTable, compressor: UInt8?) {
        for expected in VCDIFF.magic {
            guard try reader.byte("the header") == expected else {
                throw VCDIFFError(.corrupt, "the data does not start with the VCDIFF header (version 0)")
            }
        }
        let indicator = try reader.byte("the header")
        typealias Bit = VCDIFF.HeaderIndicator
        guard indicator & ~(Bit.decompress | Bit.codeTable | Bit.applicationHeader) == 0 else {
            throw VCDIFFError(.corrupt, "the header indicator has unknown bits (\(indicator))")
        }
        var compressor: UInt8?
        if indicator & Bit.decompress != 0 {
            let id = try reader.byte("the header")
            guard id == LZMASection.compressorID, allowCustomTable else {
                throw VCDIFFError(.unsupported, "the delta uses secondary compressor \(id), which this decoder does not have")
            }
            compressor = id
        }
        var table = CodeTable.default
        if indicator & Bit.codeTable != 0 {
            guard allowCustomTable else { throw VCDIFFError(.corrupt, "a code table's own delta has a custom code table") }
            table = try readCodeTable(&reader)
        }
        if indicator & Bit.applicationHeader != 0 {
            let length = try reader.integer("the application header")
            _ = try reader.skip(length, "the application header")
        }
        return (table, compressor)
    }

    /// RFC 3284 §7: the cache sizes, then the table's 1536-byte string as a delta against the
    /// default table's.
    static func readCodeTable(_ reader: inout ByteReader) throws -> CodeTable {
        let length = try reader.integer("the code table length")
        guard length >= 2 else { throw VCDIFFError(.corrupt, "the code table data is too short") }
        let start = try reader.skip(length, "the code table")
        let near = Int(reader.bytes[start])
        let same = Int(reader.bytes[start + 1])
        guard 2 + near + same <= 256 else { throw VCDIFFError(.corrupt, "the address caches (\(near), \(same)) are too large") }
        var inner = ByteReader(reader.bytes, from: start + 2, to: start + length)
        let (innerTable, _) = try readHeader(&inner, allowCustomTable: false)
        var tableBytes: [UInt8] = []
        var noStreams = SectionStreams(isEnabled: false)
        let limits = Limits(maximumWindowSize: 1536, maximumTargetSize: 1536)
        try CodeTable.default.bytes.withUnsafeBytes { defaultBytes in
            while !inner.isAtEnd {
                try decodeWindow(&inner, table: innerTable, streams: &noStreams, source: defaultBytes, output: &tableBytes, limits: limits)
            }
        }
        return try CodeTable(bytes: tableBytes, nearCacheSize: near, sameCacheSize: same)
    }

    static func decodeWindow(
        _ reader: inout ByteReader,
        table: CodeTable,
        streams: inout SectionStreams,
        source: UnsafeRawBufferPointer,
        output: inout some VCDIFFOutput,
        limits: Limits
    ) throws {
        typealias Bit = VCDIFF.WindowIndicator
        let indicator = try reader.byte("a window indicator")
        guard indicator & ~(Bit.source | Bit.target | Bit.adler32) == 0 else {
            throw VCDIFFError(.corrupt, "a window indicator has unknown bits (\(indicator))")
        }
        guard indicator & Bit.source == 0 || indicator & Bit.target == 0 else {
            throw VCDIFFError(.corrupt, "a window has both a source and a target segment")
        }

        // The segment COPY addresses start in: part of the source, or of the target so far.
        var segmentCopy: [UInt8] = []
        var segment = UnsafeRawBufferPointer(start: nil, count: 0)
        if indicator & (Bit.source | Bit.target) != 0 {
            let fromSource = indicator & Bit.source != 0
            let available = fromSource ? source.count : output.count
            let length = try reader.integer("a source segment size")
            let position = try reader.integer("a source segment position", limit: Int.max >> 1)
            guard position <= available, length <= available - position else {
                throw VCDIFFError(
                    fromSource ? .wrongSource : .corrupt,
                    "a window's segment (\(length) bytes at \(position)) is outside the \(fromSource ? "source" : "target so far") (\(available) bytes)"
                )
            }
            if fromSource {
                segment = UnsafeRawBufferPointer(rebasing: source[position..<position + length])
            } else {
                guard length <= limits.maximumWindowSize else {
                    throw VCDIFFError(.limitExceeded, "a target segment of \(length) bytes is over the limit of \(limits.maximumWindowSize)")
                }
                segmentCopy = try output.read(from: position, count: length)
            }
        }

        let deltaLength = try reader.integer("a delta encoding length")
        let deltaStart = try reader.skip(deltaLength, "a window")
        var window = ByteReader(reader.bytes, from: deltaStart, to: deltaStart + deltaLength)
        let targetLength = try window.integer("a target window length")
        guard targetLength <= limits.maximumWindowSize else {
            throw VCDIFFError(.limitExceeded, "a target window of \(targetLength) bytes is over the limit of \(limits.maximumWindowSize)")
        }
        guard targetLength <= limits.maximumTargetSize - output.count else {
            throw VCDIFFError(.limitExceeded, "the target grows past the limit of \(limits.maximumTargetSize) bytes")
        }
        typealias Packed = VCDIFF.DeltaIndicator
        let compressed = try window.byte("a delta indicator")
        guard compressed & ~(Packed.dataCompressed | Packed.instructionsCompressed | Packed.addressesCompressed) == 0 else {
            throw VCDIFFError(.corrupt, "a delta indicator has unknown bits (\(compressed))")
        }
        guard compressed == 0 || streams.isEnabled else {
            throw VCDIFFError(.corrupt, "a window's sections are compressed, but the header names no secondary compressor")
        }
        let dataLength = try window.integer("a data section length")
        let instructionsLength = try window.integer("an instruction section length")
        let addressesLength = try window.integer("an address section length")
        var checksum: UInt32?
        if indicator & Bit.adler32 != 0 {
            var value: UInt32 = 0
            for _ in 0..<4 { value = value << 8 | UInt32(try window.byte("a window checksum")) }
            checksum = value
        }
        let dataStart = try window.skip(dataLength, "a data section")
        let instructionsStart = try window.skip(instructionsLength, "an instruction section")
        let addressesStart = try window.skip(addressesLength, "an address section")
        guard window.isAtEnd else { throw VCDIFFError(.corrupt, "a window's length does not match its sections") }

        // Unpacked sections, held until the window is done.
        var unpacked: [UnsafeMutableRawBufferPointer] = []
        defer { for buffer in unpacked { buffer.deallocate() } }
        // A packed section unpacks to no more than its window can use: every instruction makes a
        // byte at least, so the data is at most the target window, and an instruction (a code and
        // two sizes) or an address at most 11 bytes a byte of it.
        func section(_ start: Int, _ length: Int, packedBy bit: UInt8, bytesPerTargetByte: Int, stream: inout LZMA2Decoder?) throws -> ByteReader {
            guard compressed & bit != 0 else { return ByteReader(reader.bytes, from: start, to: start + length) }
            let packed = UnsafeRawBufferPointer(rebasing: reader.bytes[start..<start + length])
            let bytes = try LZMASection.unpack(
                packed,
                stream: &stream,
                maximumSize: bytesPerTargetByte * targetLength,
                maximumDictionary: max(limits.maximumWindowSize, LZMASection.dictionaryAllowance)
            )
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            unpacked.append(buffer)
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return ByteReader(UnsafeRawBufferPointer(buffer))
        }
        var sections = WindowSections(
            data: try section(dataStart, dataLength, packedBy: Packed.dataCompressed, bytesPerTargetByte: 1, stream: &streams.data),
            instructions: try section(
                instructionsStart,
                instructionsLength,
                packedBy: Packed.instructionsCompressed,
                bytesPerTargetByte: 11,
                stream: &streams.instructions
            ),
            addresses: try section(
                addressesStart,
                addressesLength,
                packedBy: Packed.addressesCompressed,
                bytesPerTargetByte: 11,
                stream: &streams.addresses
            )
        )
        let target = UnsafeMutableRawBufferPointer.allocate(byteCount: targetLength, alignment: 1)
        defer { target.deallocate() }
        try segmentCopy.withUnsafeBytes { copied in
            try sections.execute(table: table, segment: segmentCopy.isEmpty ? segment : copied, into: target)
        }
        if let checksum {
            let actual = UInt32(adler32(1, target.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(targetLength)))
            guard actual == checksum else {
                throw VCDIFFError(.wrongSource, "a window's Adler-32 does not match: the delta was made from other source bytes")
            }
        }
        try output.write(UnsafeRawBufferPointer(target))
    }
}

/// The secondary compressor's streams of one delta, one a kind of section (``LZMASection``).
struct SectionStreams {
    /// Whether the delta's header names the secondary compressor.
    let isEnabled: Bool
    var data: LZMA2Decoder?
    var instructions: LZMA2Decoder?
    var addresses: LZMA2Decoder?

    init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }
}

/// The three sections of one window while its instructions run.
struct WindowSections {
    var data: ByteReader
    var instructions: ByteReader
    var addresses: ByteReader

    /// Runs every instruction, filling `target` exactly.
    mutating func execute(table: CodeTable, segment: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) throws(VCDIFFError) {
        var cache = AddressCache(nearSize: table.nearCacheSize, sameSize: table.sameCacheSize)
        var written = 0
        while !instructions.isAtEnd {
            let opcode = Int(try instructions.byte("an instruction"))
            try perform(table.first[opcode], cache: &cache, segment: segment, into: target, written: &written)
            try perform(table.second[opcode], cache: &cache, segment: segment, into: target, written: &written)
        }
        guard written == target.count else {
            throw VCDIFFError(.corrupt, "the instructions make \(written) bytes of a \(target.count)-byte target window")
        }
        guard data.isAtEnd, addresses.isAtEnd else {
            throw VCDIFFError(.corrupt, "a window has data or addresses its instructions do not use")
        }
    }

    private mutating func perform(
        _ half: CodeTable.Half,
        cache: inout AddressCache,
        segment: UnsafeRawBufferPointer,
        into target: UnsafeMutableRawBufferPointer,
        written: inout Int
    ) throws(VCDIFFError) {
        guard half.type != .noop else { return }
        var size = Int(half.size)
        if size == 0 { size = try instructions.integer("an instruction size") }
        // An instruction that makes nothing only costs work (a RUN of none still takes a byte).
        guard size > 0 else { throw VCDIFFError(.corrupt, "an instruction has size 0") }
        guard size <= target.count - written else {
            throw VCDIFFError(.corrupt, "the instructions write past the end of the target window (\(target.count) bytes)")
        }
        switch half.type {
        case .noop:
            return
        case .add:
            let start = try data.skip(size, "an ADD's data")
            target.baseAddress!.advanced(by: written).copyMemory(from: data.bytes.baseAddress!.advanced(by: start), byteCount: size)
        case .run:
            let byte = try data.byte("a RUN's byte")
            target.baseAddress!.advanced(by: written).initializeMemory(as: UInt8.self, repeating: byte, count: size)
        case .copy:
            let address = try cache.decode(mode: half.mode, here: segment.count + written, from: &addresses)
            copy(size, from: address, segment: segment, into: target, at: written)
        }
        written += size
    }

    /// A COPY reads the string `segment + target` (RFC 3284 §3): it may start in the segment and
    /// run into the target, and a target copy may overlap what it writes, repeating a pattern.
    private func copy(_ size: Int, from address: Int, segment: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, at position: Int) {
        var position = position
        var remaining = size
        var targetAddress = address - segment.count
        if address < segment.count {
            let count = min(remaining, segment.count - address)
            target.baseAddress!.advanced(by: position).copyMemory(from: segment.baseAddress!.advanced(by: address), byteCount: count)
            position += count
            remaining -= count
            targetAddress = 0
        }
        guard remaining > 0 else { return }
        if targetAddress + remaining <= position {
            target.baseAddress!.advanced(by: position).copyMemory(from: target.baseAddress!.advanced(by: targetAddress), byteCount: remaining)
        } else {
            for offset in 0..<remaining { target[position + offset] = target[targetAddress + offset] }
        }
    }
}
