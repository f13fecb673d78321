/// A request's path, percent-decoded exactly once and checked so that it can name nothing outside
/// the tree it is looked up in (RFC 3986 §3.3, §2.1).
///
/// Refused, whatever their encoding: `.` and `..` segments, empty segments other than a trailing
/// one, NUL and other control characters, backslashes, an encoded `/` inside a segment, malformed
/// percent-escapes and bytes that are not UTF-8. A name that merely contains dots, such as
/// `v1..2.txt`, is fine.
public struct RequestPath: Hashable, Sendable {
    /// The decoded segments, without the trailing empty one.
    public let segments: [String]
    /// Whether the path ended in `/` (a folder index was asked for).
    public let hasTrailingSlash: Bool

    /// The decoded path without its leading slash, `/`-separated.
    public var relativePath: String { segments.joined(separator: "/") }

    /// Why a path was refused.
    public enum Problem: Error, Hashable, Sendable {
        case notAbsolute
        case malformedEscape
        case notUTF8
        case forbiddenCharacter
        case dotSegment
        case emptySegment
    }

    /// Decodes the path part of a request target (no query).
    public init(decoding rawPath: some StringProtocol) throws(Problem) {
        var raw = Substring(rawPath)
        guard raw.first == "/" else { throw .notAbsolute }
        raw = raw.dropFirst()
        // Split at `/` bytes: a `/` followed by a combining mark is one `Character`.
        var pieces = raw.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
        let hasTrailingSlash = pieces.last == ""
        if hasTrailingSlash { pieces.removeLast() }
        var segments: [String] = []
        segments.reserveCapacity(pieces.count)
        for piece in pieces {
            let segment = try Self.decodeSegment(piece)
            if segment.isEmpty { throw .emptySegment }
            if segment == "." || segment == ".." { throw .dotSegment }
            segments.append(segment)
        }
        self.segments = segments
        self.hasTrailingSlash = hasTrailingSlash
    }

    /// The relative path of `rawPath` (after its leading `/`) when decoding would give it back
    /// unchanged, as for nearly every request: only unreserved characters (RFC 3986 §2.3) and
    /// `/`, no empty, `.` or `..` segment, no trailing `/`. One pass, nothing allocated; `nil`
    /// otherwise, and the path is then decoded with ``init(decoding:)``.
    public static func plainRelativePath(_ rawPath: Substring) -> Substring? {
        let bytes = rawPath.utf8
        guard bytes.first == UInt8(ascii: "/"), bytes.count > 1 else { return nil }
        var segmentLength = 0
        var segmentIsDots = true
        for byte in bytes.dropFirst() {
            switch byte {
            case UInt8(ascii: "/"):
                // An empty, `.` or `..` segment before this slash.
                if segmentLength == 0 || (segmentIsDots && segmentLength <= 2) { return nil }
                segmentLength = 0
                segmentIsDots = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                segmentLength += 1
                segmentIsDots = false
            case UInt8(ascii: "."):
                segmentLength += 1
            default:
                return nil
            }
        }
        if segmentLength == 0 || (segmentIsDots && segmentLength <= 2) { return nil }
        return rawPath.dropFirst()
    }

    static func decodeSegment(_ piece: Substring) throws(Problem) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(piece.utf8.count)
        var iterator = piece.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(Hex.value), let low = iterator.next().flatMap(Hex.value) else {
                    throw .malformedEscape
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        for byte in bytes where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") {
            throw .forbiddenCharacter
        }
        // Decoding repairs malformed UTF-8 with U+FFFD; a repaired text differs from the bytes.
        // (`String(validating:as:)` says the same in one call, from iOS 18 only.)
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { throw .notUTF8 }
        return text
    }
}

extension RequestPath {
    /// Percent-encodes a `/`-separated relative path for use in a URL: each segment keeps the
    /// characters RFC 3986 allows in a path segment unencoded (`pchar`), and escapes the rest.
    ///
    /// Segments are split at `/` bytes, not `Character`s: a segment that starts with a combining
    /// mark makes one grapheme of the `/` before it, which a split by `Character` would miss.
    public static func encode(_ relativePath: String) -> String {
        relativePath.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { segment in
            var encoded = ""
            for byte in segment {
                if isPathCharacter(byte) {
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    let digits = Array("0123456789ABCDEF".unicodeScalars)
                    encoded.unicodeScalars.append("%")
                    encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                    encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
                }
            }
            return encoded
        }.joined(separator: "/")
    }

    /// `pchar = unreserved / pct-encoded / sub-delims / ":" / "@"`, less `%` itself.
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@".utf8.contains(byte)
        }
    }
}

extension RequestPath.Problem {
    /// A sentence for an error body.
    public var explanation: String {
        switch self {
        case .notAbsolute: "it does not start with /"
        case .malformedEscape: "it has a malformed percent-escape"
        case .notUTF8: "it is not UTF-8"
        case .forbiddenCharacter: "it has a control character, a backslash or an encoded slash"
        case .dotSegment: "it has a . or .. segment"
        case .emptySegment: "it has an empty segment"
        }
    }
}
