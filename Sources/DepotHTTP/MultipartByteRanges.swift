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
