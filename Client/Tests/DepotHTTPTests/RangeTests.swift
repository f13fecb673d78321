import Testing

@testable import DepotHTTP

/// RFC 9110 §14.1 (range units and specs), §14.2 (Range), §14.4 (Content-Range), §14.6 (multipart).
@Suite("Byte ranges (RFC 9110 §14)")
struct RangeTests {
    @Test(
        "parses range sets (§14.1.2)",
        arguments: [
            ("bytes=0-499", [ByteRangeSpec.bounded(first: 0, last: 499)]),
            ("BYTES=0-0", [.bounded(first: 0, last: 0)]),
            ("Bytes=9500-", [.from(first: 9500)]),
            ("bytes=-500", [.suffix(length: 500)]),
            ("bytes=0-0,-1", [.bounded(first: 0, last: 0), .suffix(length: 1)]),
            ("bytes= 500-600 , 601-999 ,", [.bounded(first: 500, last: 600), .bounded(first: 601, last: 999)]),
            ("bytes=-0", [.suffix(length: 0)]),
            ("bytes=99999999999999999999999-", [.from(first: Int64.max)]),
        ]
    )
    func parses(text: String, specs: [ByteRangeSpec]) {
        #expect(ByteRangeSet(fieldLines: [text])?.specs == specs)
    }

    @Test(
        "ignores unknown units and invalid sets (§14.2)",
        arguments: [
            "items=0-5", "bytes 0-5", "bytes=", "bytes=,", "bytes=5-4", "bytes=a-b", "bytes=0-5,x", "bytes=--5", "bytes=0 -5", "bytes=1-2-3", "=0-5",
        ]
    )
    func ignoresInvalid(text: String) {
        #expect(ByteRangeSet(fieldLines: [text]) == nil)
    }

    @Test("Range is a singleton field: two field lines are ignored")
    func twoLines() {
        #expect(ByteRangeSet(fieldLines: ["bytes=0-1", "bytes=2-3"]) == nil)
    }

    @Test(
        "selects ranges against a 10000-byte representation (§14.1.2, §14.2)",
        arguments: [
            ("bytes=0-499", RangeSelection.ranges([0...499])),
            ("bytes=9500-", .ranges([9500...9999])),
            ("bytes=-500", .ranges([9500...9999])),
            ("bytes=9500-20000", .ranges([9500...9999])),  // last-pos past the end is clamped
            ("bytes=-20000", .ranges([0...9999])),  // a suffix longer than the representation selects all of it
            ("bytes=0-", .ranges([0...9999])),
            ("bytes=10000-", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=10000-10001,-0", .unsatisfiable),
            ("bytes=10000-10001,0-0", .ranges([0...0])),  // unsatisfiable specs are dropped
            ("bytes=0-1,5-6", .ranges([0...1, 5...6])),
            ("bytes=5-6,0-1", .ranges([5...6, 0...1])),  // client order is kept
            ("bytes=0-4,3-8", .ranges([0...8])),  // overlapping
            ("bytes=0-4,5-8", .ranges([0...8])),  // adjacent
            ("bytes=500-600,0-99,90-510", .ranges([0...600])),
            ("bytes=900-999,0-9,10-19,500-509", .ranges([900...999, 0...19, 500...509])),
            ("bytes=0-,0-", .full),  // asks for more than the whole
            ("bytes=0-6000,4000-9999", .full),
        ]
    )
    func selects(text: String, expected: RangeSelection) throws {
        let set = try #require(ByteRangeSet(fieldLines: [text]))
        #expect(RangeSelection.select(set, length: 10_000, limits: RangeLimits()) == expected)
    }

    @Test("the count of range specs is capped (Apache CVE-2011-3192)")
    func capsCount() throws {
        let many = "bytes=" + (0..<201).map { "\($0 * 10)-\($0 * 10)" }.joined(separator: ",")
        let set = try #require(ByteRangeSet(fieldLines: [many]))
        #expect(RangeSelection.select(set, length: 1_000_000, limits: RangeLimits(maxRanges: 200)) == .full)
        if case .ranges(let ranges) = RangeSelection.select(set, length: 1_000_000, limits: RangeLimits(maxRanges: 201)) {
            #expect(ranges.count == 201)
        } else {
            Issue.record("expected 201 ranges")
        }
    }

    @Test("a zero-length representation has no satisfiable range")
    func emptyRepresentation() throws {
        #expect(RangeSelection.select(try #require(ByteRangeSet(fieldLines: ["bytes=0-"])), length: 0, limits: .init()) == .unsatisfiable)
        #expect(RangeSelection.select(try #require(ByteRangeSet(fieldLines: ["bytes=-5"])), length: 0, limits: .init()) == .full)
    }

    /// §14.6: the body layout, byte for byte.
    @Test("multipart/byteranges layout and exact length (§14.6)")
    func multipartLayout() {
        let body = MultipartByteRanges(ranges: [0...1, 5...6], completeLength: 10, contentType: "text/plain", boundary: "B")
        let content = Array("0123456789".utf8)
        var rendered = ""
        for part in body.parts {
            rendered += part.header
            rendered += String(decoding: content[Int(part.range.lowerBound)...Int(part.range.upperBound)], as: UTF8.self)
        }
        rendered += body.trailer
        let expected =
            "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\n01"
            + "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 5-6/10\r\n\r\n56" + "\r\n--B--\r\n"
        #expect(rendered == expected)
        #expect(body.contentLength == Int64(expected.utf8.count))
        #expect(body.contentType == "multipart/byteranges; boundary=B")
    }

    @Test("Content-Range values (§14.4)")
    func contentRange() {
        #expect(ContentRange.satisfied(0...499, completeLength: 1234) == "bytes 0-499/1234")
        #expect(ContentRange.unsatisfied(completeLength: 1234) == "bytes */1234")
    }

    /// The client's reading of §14.6 bodies: what Depot writes, what nginx writes (no CRLF before
    /// the first delimiter, a preamble), parts whose bytes hold the boundary, and damaged bodies.
    @Test("multipart/byteranges bodies read back (§14.6)", arguments: Self.multipartCases.indices)
    func multipartParsing(index: Int) {
        let (why, body, expected) = Self.multipartCases[index]
        let parsed = try? MultipartByteRanges.parse(Array(body.utf8), boundary: "B")
        #expect(parsed.map { $0.map { "\($0.range):\(String(decoding: $0.bytes, as: UTF8.self))" } } == expected, "\(why)")
    }

    static let multipartCases: [(String, String, [String]?)] = [
        (
            "Depot's layout",
            "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-1/10\r\n\r\n01\r\n--B\r\nContent-Range: bytes 5-6/10\r\n\r\n56\r\n--B--\r\n",
            ["0...1:01", "5...6:56"]
        ),
        ("a preamble, no CRLF first, case-insensitive field names", "preamble--B\r\ncontent-range: bytes 2-4/10\r\n\r\n234\r\n--B--", ["2...4:234"]),
        ("a part's bytes may hold the delimiter", "--B\r\nContent-Range: bytes 0-6/10\r\n\r\n\r\n--B--\r\n--B--\r\n", ["0...6:\r\n--B--"]),
        ("a part cut short", "--B\r\nContent-Range: bytes 0-9/10\r\n\r\n0123", nil),
        ("a part without Content-Range", "--B\r\nContent-Type: text/plain\r\n\r\n01\r\n--B--\r\n", nil),
        ("an unsatisfied Content-Range", "--B\r\nContent-Range: bytes */10\r\n\r\n\r\n--B--\r\n", nil),
        ("no closing delimiter", "--B\r\nContent-Range: bytes 0-1/10\r\n\r\n01", nil),
        ("another boundary", "--C\r\nContent-Range: bytes 0-1/10\r\n\r\n01\r\n--C--\r\n", nil),
    ]

    @Test("Content-Range and Content-Type read back")
    func contentRangeParsing() {
        #expect(ContentRange.parse("bytes 0-499/1234")?.range == 0...499)
        #expect(ContentRange.parse(" bytes 5-5/6 ")?.completeLength == 6)
        for bad in ["bytes */1234", "bytes 5-4/10", "bytes 0-10/10", "items 0-1/10", "bytes 0-1/*", "bytes -1-2/10"] {
            #expect(ContentRange.parse(bad) == nil, "\(bad)")
        }
        #expect(MultipartByteRanges.boundary(ofContentType: "multipart/byteranges; boundary=abc") == "abc")
        #expect(MultipartByteRanges.boundary(ofContentType: "Multipart/ByteRanges;charset=x; Boundary=\"a b\"") == "a b")
        #expect(MultipartByteRanges.boundary(ofContentType: "multipart/mixed; boundary=abc") == nil)
        #expect(MultipartByteRanges.boundary(ofContentType: "multipart/byteranges") == nil)
    }
}
