/// Decodes an LZMA2 stream (the chunks of an .xz block), piece by piece: xdelta3 packs each
/// kind of section as one stream across a delta's windows, each window's section continuing it
/// with the dictionary and models of the one before.
///
/// Written by hand: no package on this machine's list decodes LZMA, and the client may depend on
/// nothing but Foundation, zlib and swift-crypto (liblzma is a system library on Linux only).
/// It follows the LZMA specification of the LZMA SDK (`lzma-specification.txt`, public domain)
/// and the LZMA2 chunk format of XZ Utils.
///
/// Built for hostile input, as ``VCDIFFDecoder`` is: every byte read is checked against the
/// chunk it belongs to, every match distance against what was decoded since the last
/// dictionary reset and is still held, and nothing is made past the size a piece declares; a
/// failure throws.
struct LZMA2Decoder {
    /// The last bytes decoded: `dictionarySize` of them once trimmed, which happens before a
    /// piece once there are twice that (or all of them, while fewer).
    private var history: [UInt8] = []
    /// How many bytes the stream has made before `history[0]`.
    private var historyStart = 0
    /// How many bytes the stream had made at its last dictionary reset.
    private var resetAt = 0
    private let dictionarySize: Int
    private var started = false
    private var properties: (lc: Int, lp: Int, pb: Int)?
    private var probabilities: [UInt16] = []
    private var state = 0
    private var reps: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)

    /// A stream whose matches reach at most `dictionarySize` bytes back.
    init(dictionarySize: Int) {
        self.dictionarySize = dictionarySize
    }

    /// The next `expectedSize` bytes of the stream, from the LZMA2 chunks at the start of
    /// `input`. Decoding stops once they are made (xdelta3 flushes each piece there, without an
    /// end marker) or at the end marker.
    /// - Throws: ``VCDIFFError`` `.corrupt` for damaged data, or data that makes another size.
    mutating func decode(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(VCDIFFError) -> [UInt8] {
        if history.count > 2 * dictionarySize {
            let dropped = history.count - dictionarySize
            history.removeFirst(dropped)
            historyStart += dropped
        }
        let pieceStart = history.count
        history.reserveCapacity(history.count + expectedSize)
        var position = 0
        func readByte() throws(VCDIFFError) -> Int {
            guard position < input.count else { throw .packedSection("the LZMA2 data ends early") }
            defer { position += 1 }
            return Int(input[position])
        }
        while history.count - pieceStart < expectedSize {
            let control = try readByte()
            if control == 0 { break }
            let resetsDictionary = control == 1 || control >= 0xE0
            guard started || resetsDictionary else { throw .packedSection("the first LZMA2 chunk does not reset the dictionary") }
            guard control < 3 || control >= 0x80 else { throw .packedSection("an LZMA2 chunk has an unknown control byte (\(control))") }
            started = true
            if resetsDictionary { resetAt = historyStart + history.count }
            let high = try readByte()
            let unpackedSize = ((control >= 0x80 ? (control & 0x1F) << 16 : 0) | high << 8 | (try readByte())) + 1
            guard unpackedSize <= expectedSize - (history.count - pieceStart) else { throw .packedSection("it makes more bytes than it says") }
            if control < 0x80 {
                // An uncompressed chunk; after a dictionary reset, the next LZMA chunk must set
                // new properties.
                guard unpackedSize <= input.count - position else { throw .packedSection("the LZMA2 data ends early") }
                history.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[position..<position + unpackedSize]))
                position += unpackedSize
                if control == 1 { properties = nil }
                continue
            }
            let packedHigh = try readByte()
            let packedSize = (packedHigh << 8 | (try readByte())) + 1
            if control >= 0xC0 {
                var byte = try readByte()
                guard byte < 9 * 5 * 5 else { throw .packedSection("LZMA properties are out of range (\(byte))") }
                let lc = byte % 9
                byte /= 9
                let lp = byte % 5
                let pb = byte / 5
                guard lc + lp <= 4 else { throw .packedSection("LZMA2 allows lc + lp of at most 4") }
                properties = (lc, lp, pb)
            }
            guard properties != nil else { throw .packedSection("an LZMA chunk comes without the properties it needs") }
            if control >= 0xA0 { resetState() }
            guard !probabilities.isEmpty else { throw .packedSection("an LZMA chunk continues a state never set") }
            guard packedSize <= input.count - position else { throw .packedSection("the LZMA2 data ends early") }
            try decodeChunk(UnsafeRawBufferPointer(rebasing: input[position..<position + packedSize]), unpackedSize: unpackedSize)
            position += packedSize
        }
        guard history.count - pieceStart == expectedSize else {
            throw .packedSection("it makes \(history.count - pieceStart) bytes, not the \(expectedSize) it says")
        }
        return Array(history[pieceStart...])
    }

    // Where each model's probabilities start in `probabilities` (the LZMA specification's).
    private static let isMatch = 0
    private static let isRep = isMatch + 192
    private static let isRepG0 = isRep + 12
    private static let isRepG1 = isRepG0 + 12
    private static let isRepG2 = isRepG1 + 12
    private static let isRep0Long = isRepG2 + 12
    private static let posSlot = isRep0Long + 192
    private static let specialPos = posSlot + 4 * 64
    private static let align = specialPos + 115
    private static let lengthCoder = align + 16
    private static let repLengthCoder = lengthCoder + 514
    private static let literal = repLengthCoder + 514

    private mutating func resetState() {
        let (lc, lp, _) = properties!
        probabilities = [UInt16](repeating: 1024, count: Self.literal + 0x300 << (lc + lp))
        state = 0
        reps = (0, 0, 0, 0)
    }

    private mutating func decodeChunk(_ chunk: UnsafeRawBufferPointer, unpackedSize: Int) throws(VCDIFFError) {
        let (lc, lp, pb) = properties!
        var decoder = try RangeDecoder(chunk)
        // Locals while the chunk decodes: the probabilities and the output are passed inout
        // side by side, which stored properties of `self` could not be.
        var p = probabilities
        var output = history
        probabilities = []
        history = []
        // `output[index]` is byte `historyStart + index` of the stream; matches may reach back to
        // the last dictionary reset, and no further than `output` holds.
        let reach = max(0, resetAt - historyStart)
        let end = output.count + unpackedSize
        var state = self.state
        var (rep0, rep1, rep2, rep3) = reps
        while output.count < end {
            let position = output.count
            let decoded = historyStart + position - resetAt
            let available = position - reach
            let posState = decoded & (1 << pb - 1)
            if try decoder.bit(&p[Self.isMatch + state << 4 + posState]) == 0 {
                let previous = available > 0 ? Int(output[position - 1]) : 0
                let base = Self.literal + 0x300 * ((decoded & (1 << lp - 1)) << lc + previous >> (8 - lc))
                var symbol = 1
                if state >= 7 {
                    guard Int(rep0) < available else { throw .packedSection("a match reaches before the dictionary") }
                    var matchByte = Int(output[position - Int(rep0) - 1])
                    while symbol < 0x100 {
                        let matchBit = (matchByte >> 7) & 1
                        matchByte <<= 1
                        let bit = try decoder.bit(&p[base + (1 + matchBit) << 8 + symbol])
                        symbol = symbol << 1 | bit
                        if matchBit != bit { break }
                    }
                }
                while symbol < 0x100 { symbol = symbol << 1 | (try decoder.bit(&p[base + symbol])) }
                output.append(UInt8(truncatingIfNeeded: symbol))
                state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6
                continue
            }
            var length: Int
            if try decoder.bit(&p[Self.isRep + state]) != 0 {
                guard available > 0 else { throw .packedSection("a repeated match comes before any byte") }
                if try decoder.bit(&p[Self.isRepG0 + state]) == 0 {
                    if try decoder.bit(&p[Self.isRep0Long + state << 4 + posState]) == 0 {
                        guard Int(rep0) < available else { throw .packedSection("a match reaches before the dictionary") }
                        state = state < 7 ? 9 : 11
                        output.append(output[position - Int(rep0) - 1])
                        continue
                    }
                } else {
                    let distance: UInt32
                    if try decoder.bit(&p[Self.isRepG1 + state]) == 0 {
                        distance = rep1
                    } else {
                        if try decoder.bit(&p[Self.isRepG2 + state]) == 0 {
                            distance = rep2
                        } else {
                            distance = rep3
                            rep3 = rep2
                        }
                        rep2 = rep1
                    }
                    rep1 = rep0
                    rep0 = distance
                }
                length = try Self.length(&decoder, &p, base: Self.repLengthCoder, posState: posState)
                state = state < 7 ? 8 : 11
            } else {
                rep3 = rep2
                rep2 = rep1
                rep1 = rep0
                length = try Self.length(&decoder, &p, base: Self.lengthCoder, posState: posState)
                state = state < 7 ? 7 : 10
                rep0 = try Self.distance(&decoder, &p, length: length)
                guard rep0 != .max else { throw .packedSection("an LZMA2 chunk holds an end marker") }
            }
            length += 2
            let distance = Int(rep0) + 1
            guard distance <= available else { throw .packedSection("a match reaches before the dictionary") }
            guard length <= end - position else { throw .packedSection("a match runs past its chunk") }
            for offset in 0..<length { output.append(output[position - distance + offset]) }
        }
        guard decoder.isFinished else { throw .packedSection("an LZMA chunk does not end where its size says") }
        probabilities = p
        history = output
        self.state = state
        reps = (rep0, rep1, rep2, rep3)
    }

    /// A match length less 2 (0…271).
    private static func length(_ decoder: inout RangeDecoder, _ p: inout [UInt16], base: Int, posState: Int) throws(VCDIFFError) -> Int {
        if try decoder.bit(&p[base]) == 0 { return try decoder.tree(&p, base: base + 2 + posState << 3, bits: 3) }
        if try decoder.bit(&p[base + 1]) == 0 { return 8 + (try decoder.tree(&p, base: base + 2 + 128 + posState << 3, bits: 3)) }
        return 16 + (try decoder.tree(&p, base: base + 2 + 256, bits: 8))
    }

    /// A match distance less 1; `UInt32.max` is the end marker.
    private static func distance(_ decoder: inout RangeDecoder, _ p: inout [UInt16], length: Int) throws(VCDIFFError) -> UInt32 {
        let slot = try decoder.tree(&p, base: posSlot + min(length, 3) << 6, bits: 6)
        guard slot >= 4 else { return UInt32(slot) }
        let directBits = slot >> 1 - 1
        var distance = UInt32(2 | slot & 1) << directBits
        if slot < 14 {
            distance += UInt32(try decoder.reverseTree(&p, base: specialPos + Int(distance) - slot, bits: directBits))
        } else {
            distance += try decoder.directBits(directBits - 4) << 4
            distance += UInt32(try decoder.reverseTree(&p, base: align, bits: 4))
        }
        return distance
    }
}

/// The range decoder of one LZMA chunk.
private struct RangeDecoder {
    private let input: UnsafeRawBufferPointer
    private var position = 5
    private var range: UInt32 = 0xFFFF_FFFF
    private var code: UInt32 = 0

    init(_ input: UnsafeRawBufferPointer) throws(VCDIFFError) {
        guard input.count >= 5, input[0] == 0 else {
            throw .packedSection("an LZMA chunk does not start as one")
        }
        self.input = input
        for index in 1..<5 { code = code << 8 | UInt32(input[index]) }
        guard code != range else { throw .packedSection("an LZMA chunk does not start as one") }
    }

    /// Whether the whole chunk was read and its code ended at 0.
    var isFinished: Bool { position == input.count && code == 0 }

    @inline(__always)
    private mutating func normalize() throws(VCDIFFError) {
        guard range < 1 << 24 else { return }
        guard position < input.count else { throw .packedSection("an LZMA chunk ends early") }
        range <<= 8
        code = code << 8 | UInt32(input[position])
        position += 1
    }

    @inline(__always)
    mutating func bit(_ probability: inout UInt16) throws(VCDIFFError) -> Int {
        let bound = (range >> 11) &* UInt32(probability)
        let bit: Int
        if code < bound {
            probability += (2048 - probability) >> 5
            range = bound
            bit = 0
        } else {
            probability -= probability >> 5
            code -= bound
            range -= bound
            bit = 1
        }
        try normalize()
        return bit
    }

    mutating func directBits(_ count: Int) throws(VCDIFFError) -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<count {
            range >>= 1
            code &-= range
            let t = 0 &- (code >> 31)
            code &+= range & t
            guard code != range else { throw .packedSection("damaged LZMA data") }
            try normalize()
            result = result << 1 &+ (t &+ 1)
        }
        return result
    }

    mutating func tree(_ p: inout [UInt16], base: Int, bits: Int) throws(VCDIFFError) -> Int {
        var m = 1
        for _ in 0..<bits { m = m << 1 | (try bit(&p[base + m])) }
        return m - 1 << bits
    }

    mutating func reverseTree(_ p: inout [UInt16], base: Int, bits: Int) throws(VCDIFFError) -> Int {
        var m = 1
        var symbol = 0
        for index in 0..<bits {
            let bit = try bit(&p[base + m])
            m = m << 1 | bit
            symbol |= bit << index
        }
        return symbol
    }
}

extension VCDIFFError {
    /// A damaged section of a secondary compressor's (``LZMASection``).
    static func packedSection(_ message: String) -> VCDIFFError {
        VCDIFFError(.corrupt, "a secondary-compressed section: \(message)")
    }
}
