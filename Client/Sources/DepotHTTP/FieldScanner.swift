/// A forward-only reader over the bytes of one field value; the small grammar pieces that several
/// RFC 9110 parsers share. Hand-written: no listed library parses HTTP field values without a
/// framework attached.
struct FieldScanner {
    private let bytes: [UInt8]
    private(set) var index: Int

    init(_ text: some StringProtocol) {
        self.bytes = Array(text.utf8)
        self.index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Skips optional whitespace (`OWS = *( SP / HTAB )`).
    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { index += 1 }
    }

    /// Skips whitespace and commas, which covers the empty elements that a list may contain.
    mutating func skipListSeparators() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: ",") { index += 1 }
    }

    /// Reads `[ W/ ] DQUOTE *etagc DQUOTE`.
    mutating func scanEntityTag() -> EntityTag? {
        let start = index
        var isWeak = false
        if peek == UInt8(ascii: "W"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
            isWeak = true
            index += 2
        }
        guard consume(UInt8(ascii: "\"")) else {
            index = start
            return nil
        }
        let opaqueStart = index
        while let byte = peek, EntityTag.isEntityTagCharacter(byte) { index += 1 }
        let opaqueEnd = index
        guard consume(UInt8(ascii: "\"")) else {
            index = start
            return nil
        }
        let opaque = String(decoding: bytes[opaqueStart..<opaqueEnd], as: UTF8.self)
        return EntityTag(unchecked: opaque, isWeak: isWeak)
    }

    /// Reads a run of ASCII digits as a non-negative integer, saturating at `Int64.max`.
    mutating func scanDigits() -> Int64? {
        let start = index
        var value: Int64 = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = (overflow1 || overflow2) ? Int64.max : sum
            index += 1
        }
        return index > start ? value : nil
    }

    /// Reads a `token` (RFC 9110 §5.6.2).
    mutating func scanToken() -> Substring? {
        let start = index
        while let byte = peek, Self.isTokenCharacter(byte) { index += 1 }
        guard index > start else { return nil }
        return Substring(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
