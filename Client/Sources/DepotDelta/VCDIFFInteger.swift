/// The variable-length integers of RFC 3284 §2: base 128, most significant digit first, the high
/// bit set on every byte but the last.
enum VCDIFFInteger {
    /// Appends `value` to `bytes`.
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        precondition(value >= 0, "VCDIFF integers are unsigned")
        var digits = 1
        while value >> (7 * digits) != 0 { digits += 1 }
        for index in stride(from: digits - 1, through: 0, by: -1) {
            let digit = UInt8((value >> (7 * index)) & 0x7F)
            bytes.append(index == 0 ? digit : digit | 0x80)
        }
    }

    /// How many bytes `append` writes for `value`.
    static func encodedCount(_ value: Int) -> Int {
        var digits = 1
        while value >> (7 * digits) != 0 { digits += 1 }
        return digits
    }
}

/// Reads a VCDIFF section: bounds-checked, never past its end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { position >= end }
    var remaining: Int { end - position }

    mutating func byte(_ what: @autoclosure () -> String) throws(VCDIFFError) -> UInt8 {
        guard position < end else { throw VCDIFFError(.truncated, "the data ends inside \(what())") }
        defer { position += 1 }
        return bytes[position]
    }

    /// An integer no larger than `limit` (which stays far from overflow).
    mutating func integer(_ what: @autoclosure () -> String, limit: Int = Int(Int32.max)) throws(VCDIFFError) -> Int {
        var value = 0
        while true {
            guard position < end else { throw VCDIFFError(.truncated, "the data ends inside \(what())") }
            let byte = bytes[position]
            position += 1
            let digit = Int(byte & 0x7F)
            // value * 128 + digit <= limit, checked before it can overflow.
            guard value <= (limit - digit) >> 7 else { throw VCDIFFError(.limitExceeded, "\(what()) is larger than \(limit)") }
            value = value << 7 | digit
            if byte & 0x80 == 0 { return value }
        }
    }

    /// Skips `count` bytes, returning where they start.
    mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws(VCDIFFError) -> Int {
        guard count <= remaining else { throw VCDIFFError(.truncated, "the data ends inside \(what())") }
        defer { position += count }
        return position
    }
}
