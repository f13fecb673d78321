/// One `range-spec` of a `bytes` Range field (RFC 9110 §14.1.2).
public enum ByteRangeSpec: Hashable, Sendable {
    /// `first-last`: both positions inclusive; `last` may lie past the end of the representation.
    case bounded(first: Int64, last: Int64)
    /// `first-`: from `first` to the end.
    case from(first: Int64)
    /// `-length`: the final `length` bytes.
    case suffix(length: Int64)

    /// The inclusive byte positions this spec selects in a representation of `length` bytes, or
    /// `nil` when it is unsatisfiable (RFC 9110 §14.1.2): a first position at or past the end, or a
    /// suffix of zero bytes. A last position past the end is clamped to the end.
    public func resolve(length: Int64) -> ClosedRange<Int64>? {
        switch self {
        case .bounded(let first, let last):
            guard first < length else { return nil }
            return first...min(last, length - 1)
        case .from(let first):
            guard first < length else { return nil }
            return first...(length - 1)
        case .suffix(let suffixLength):
            guard suffixLength > 0, length > 0 else { return nil }
            return max(0, length - suffixLength)...(length - 1)
        }
    }
}

/// A parsed `Range` field in the `bytes` unit (RFC 9110 §14.2).
public struct ByteRangeSet: Hashable, Sendable {
    /// The range specs in the order the client sent them.
    public let specs: [ByteRangeSpec]

    public init(specs: [ByteRangeSpec]) {
        self.specs = specs
    }

    /// Parses `Range` field lines. Returns `nil` for anything a server must ignore: an unknown
    /// range unit, a syntactically invalid set (including `first > last`), or no field at all.
    /// The unit is matched without regard to case (§14.1); empty list elements are skipped.
    public init?(fieldLines: [String]) {
        guard fieldLines.count == 1 else { return nil }  // Range is a singleton field.
        var scanner = FieldScanner(fieldLines[0])
        scanner.skipWhitespace()
        guard let unit = scanner.scanToken(), unit.lowercased() == "bytes", scanner.consume(UInt8(ascii: "=")) else { return nil }
        var specs: [ByteRangeSpec] = []
        while true {
            scanner.skipListSeparators()
            if scanner.isAtEnd { break }
            guard let spec = Self.scanSpec(&scanner) else { return nil }
            specs.append(spec)
            scanner.skipWhitespace()
            guard scanner.isAtEnd || scanner.peek == UInt8(ascii: ",") else { return nil }
        }
        guard !specs.isEmpty else { return nil }
        self.specs = specs
    }

    private static func scanSpec(_ scanner: inout FieldScanner) -> ByteRangeSpec? {
        if scanner.consume(UInt8(ascii: "-")) {
            guard let length = scanner.scanDigits() else { return nil }
            return .suffix(length: length)
        }
        guard let first = scanner.scanDigits(), scanner.consume(UInt8(ascii: "-")) else { return nil }
        guard let last = scanner.scanDigits() else { return .from(first: first) }
        guard first <= last else { return nil }
        return .bounded(first: first, last: last)
    }
}
