/// The exact layout of a `multipart/byteranges` body (RFC 9110 §14.6), so that its
/// `Content-Length` is known before the first byte is sent.
///
/// ```
/// CRLF --BOUNDARY CRLF Content-Type: … CRLF Content-Range: bytes a-b/len CRLF CRLF <bytes>
/// CRLF --BOUNDARY CRLF … CRLF CRLF <bytes>
/// CRLF --BOUNDARY-- CRLF
/// ```
///
/// Every delimiter, the first too, starts with a CRLF, as nginx and Apache write it: RFC 2046
/// §5.1.1 lets the body start at the first `--BOUNDARY`, but zsync 0.6.2 reads a multipart body as
/// lines and expects an empty one before each delimiter; without it, it refused every answer
/// and asked again, a million times.
public struct MultipartByteRanges: Hashable, Sendable {
    /// One part: the bytes that precede it, then a slice of the representation.
    public struct Part: Hashable, Sendable {
        public let header: String
        public let range: ClosedRange<Int64>
    }

    public let boundary: String
    public let parts: [Part]
    /// The bytes after the last part.
    public let trailer: String
    /// The total size of the body.
    public let contentLength: Int64

    /// The `Content-Type` field value of the whole response.
    public var contentType: String { "multipart/byteranges; boundary=\(boundary)" }

    /// - Parameters:
    ///   - ranges: The byte positions to send, in order.
    ///   - completeLength: The length of the whole representation, for each `Content-Range`.
    ///   - contentType: The representation's media type, repeated in each part.
    ///   - boundary: 1 to 70 characters that do not occur in the content (RFC 2046 §5.1.1).
    public init(ranges: [ClosedRange<Int64>], completeLength: Int64, contentType: String, boundary: String) {
        self.boundary = boundary
        var parts: [Part] = []
        var total: Int64 = 0
        for range in ranges {
            let header =
                "\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Range: \(ContentRange.satisfied(range, completeLength: completeLength))\r\n\r\n"
            parts.append(Part(header: header, range: range))
            total += Int64(header.utf8.count) + range.upperBound - range.lowerBound + 1
        }
        self.trailer = "\r\n--\(boundary)--\r\n"
        self.parts = parts
        self.contentLength = total + Int64(trailer.utf8.count)
    }
}

/// `Content-Range` field values (RFC 9110 §14.4).
public enum ContentRange {
    /// `bytes first-last/complete`
    public static func satisfied(_ range: ClosedRange<Int64>, completeLength: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound)/\(completeLength)"
    }

    /// `bytes */complete`, sent with 416.
    public static func unsatisfied(completeLength: Int64) -> String {
        "bytes */\(completeLength)"
    }
}

extension ContentRange {
    /// The range and complete length of a `bytes first-last/complete` value; nil for any other
    /// (an unsatisfied range, a unit other than bytes, an unknown complete length).
    public static func parse(_ value: some StringProtocol) -> (range: ClosedRange<Int64>, completeLength: Int64)? {
        let value = value.trimmingOWS()
        guard value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        guard let slash = spec.firstIndex(of: "/"), let dash = spec[..<slash].firstIndex(of: "-"),
            let first = Int64(spec[..<dash]), let last = Int64(spec[spec.index(after: dash)..<slash]),
            let complete = Int64(spec[spec.index(after: slash)...]), first >= 0, first <= last, last < complete
        else { return nil }
        return (first...last, complete)
    }
}

extension MultipartByteRanges {
    /// The parts of a `multipart/byteranges` body (RFC 9110 §14.6) with `boundary`: each part's
    /// `Content-Range` and its bytes, sliced by that range's length (a part's bytes may hold
    /// anything, its boundary too). Preamble and epilogue are skipped.
    ///
    /// - Throws: ``MultipartParseError`` when the body does not have that shape.
    public static func parse(_ body: [UInt8], boundary: String) throws(MultipartParseError) -> [(range: ClosedRange<Int64>, bytes: ArraySlice<UInt8>)]
    {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [(ClosedRange<Int64>, ArraySlice<UInt8>)] = []
        guard var position = body.firstRange(of: delimiter)?.upperBound else { throw MultipartParseError("no boundary") }
        while true {
            // After a delimiter: "--" ends the body; else optional whitespace and a CRLF.
            if body[position...].starts(with: Array("--".utf8)) { return parts }
            guard let headerStart = body[position...].firstRange(of: Array("\r\n".utf8))?.upperBound,
                let headerEnd = body[headerStart...].firstRange(of: Array("\r\n\r\n".utf8))
            else { throw MultipartParseError("a part has no header") }
            let header = String(decoding: body[headerStart..<headerEnd.lowerBound], as: UTF8.self)
            let contentRange = header.split(separator: "\r\n").compactMap { line -> Substring? in
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "content-range" else { return nil }
                return line[line.index(after: colon)...]
            }
            guard contentRange.count == 1, let (range, _) = ContentRange.parse(contentRange[0]) else {
                throw MultipartParseError("a part has no usable Content-Range")
            }
            let start = headerEnd.upperBound
            let length = Int(range.upperBound - range.lowerBound + 1)
            guard body.count - start >= length else { throw MultipartParseError("a part is cut short") }
            parts.append((range, body[start..<start + length]))
            guard let next = body[(start + length)...].firstRange(of: delimiter) else { throw MultipartParseError("the body does not end") }
            position = next.upperBound
        }
    }

    /// The `boundary` parameter of a `multipart/byteranges` `Content-Type`; nil for another type.
    public static func boundary(ofContentType value: String) -> String? {
        let fields = value.split(separator: ";").map { $0.trimmingOWS() }
        guard fields.first?.lowercased() == "multipart/byteranges" else { return nil }
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingOWS().lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingOWS()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}

/// Why a `multipart/byteranges` body could not be read.
public struct MultipartParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { "multipart/byteranges: \(message)" }
}
