import Testing

@testable import DepotHTTP

/// RFC 9110 §13.2.2: the order in which preconditions are evaluated, then §14.2 and §13.1.5.
@Suite("Preconditions and ranges together (RFC 9110 §13.2.2)")
struct ResponsePlanTests {
    static let modified = HTTPDate(secondsSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
    static let lastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
    static let earlier = "Tue, 14 Nov 2023 22:13:19 GMT"
    static let later = "Tue, 14 Nov 2023 22:13:21 GMT"
    static let representation = RepresentationValidators(
        entityTag: tag("abc"),
        lastModified: modified,
        lastModifiedIsStrong: true,
        length: 10_000
    )

    static func plan(_ request: ConditionalRequest, _ representation: RepresentationValidators = representation) -> ResponsePlan {
        ResponsePlan.evaluate(
            request,
            representation: representation,
            now: HTTPDate(secondsSince1970: 1_795_000_000),
            contentType: "application/octet-stream",
            boundary: "B"
        )
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let request: ConditionalRequest
        let expected: ResponsePlan
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // §13.1.1 If-Match
        Case(name: "If-Match matching", request: .init(method: .get, ifMatch: ["\"x\", \"abc\""]), expected: .full),
        Case(name: "If-Match not matching", request: .init(method: .get, ifMatch: ["\"x\""]), expected: .preconditionFailed),
        Case(name: "If-Match weak never matches", request: .init(method: .get, ifMatch: ["W/\"abc\""]), expected: .preconditionFailed),
        Case(name: "If-Match *", request: .init(method: .get, ifMatch: ["*"]), expected: .full),
        Case(name: "If-Match on HEAD", request: .init(method: .head, ifMatch: ["\"x\""]), expected: .preconditionFailed),
        // §13.1.4 If-Unmodified-Since, only without If-Match
        Case(name: "IUS at LM", request: .init(method: .get, ifUnmodifiedSince: [lastModified]), expected: .full),
        Case(name: "IUS before LM", request: .init(method: .get, ifUnmodifiedSince: [earlier]), expected: .preconditionFailed),
        Case(name: "IUS invalid is ignored", request: .init(method: .get, ifUnmodifiedSince: ["soon"]), expected: .full),
        Case(
            name: "IUS ignored when If-Match is present",
            request: .init(method: .get, ifMatch: ["\"abc\""], ifUnmodifiedSince: [earlier]),
            expected: .full
        ),
        // §13.1.2 If-None-Match
        Case(name: "INM matching → 304", request: .init(method: .get, ifNoneMatch: ["\"abc\""]), expected: .notModified),
        Case(name: "INM weak matches", request: .init(method: .get, ifNoneMatch: ["W/\"abc\""]), expected: .notModified),
        Case(name: "INM second line matches", request: .init(method: .get, ifNoneMatch: ["\"x\"", "\"abc\""]), expected: .notModified),
        Case(name: "INM * → 304", request: .init(method: .get, ifNoneMatch: ["*"]), expected: .notModified),
        Case(name: "INM other tag", request: .init(method: .get, ifNoneMatch: ["\"x\""]), expected: .full),
        Case(name: "INM matching on HEAD → 304", request: .init(method: .head, ifNoneMatch: ["\"abc\""]), expected: .notModified),
        Case(name: "INM matching on other → 412", request: .init(method: .other, ifNoneMatch: ["\"abc\""]), expected: .preconditionFailed),
        // §13.1.3 If-Modified-Since, only without If-None-Match and for GET/HEAD
        Case(name: "IMS at LM → 304", request: .init(method: .get, ifModifiedSince: [lastModified]), expected: .notModified),
        Case(name: "IMS after LM → 304", request: .init(method: .get, ifModifiedSince: [later]), expected: .notModified),
        Case(name: "IMS before LM", request: .init(method: .get, ifModifiedSince: [earlier]), expected: .full),
        Case(name: "IMS invalid", request: .init(method: .get, ifModifiedSince: ["Tue, 14 Nov 2023"]), expected: .full),
        Case(name: "IMS two members", request: .init(method: .get, ifModifiedSince: [lastModified, later]), expected: .full),
        Case(name: "IMS on other method", request: .init(method: .other, ifModifiedSince: [lastModified]), expected: .full),
        Case(
            name: "IMS ignored when INM present (nginx differs)",
            request: .init(method: .get, ifNoneMatch: ["\"x\""], ifModifiedSince: [later]),
            expected: .full
        ),
        Case(
            name: "INM match wins over an older IMS (nginx differs)",
            request: .init(method: .get, ifNoneMatch: ["\"abc\""], ifModifiedSince: [earlier]),
            expected: .notModified
        ),
        // Order: 412 before 304
        Case(
            name: "If-Match fails before INM is looked at",
            request: .init(method: .get, ifMatch: ["\"x\""], ifNoneMatch: ["\"abc\""]),
            expected: .preconditionFailed
        ),
        Case(
            name: "IUS fails before IMS is looked at",
            request: .init(method: .get, ifModifiedSince: [later], ifUnmodifiedSince: [earlier]),
            expected: .preconditionFailed
        ),
        // Preconditions come before ranges
        Case(name: "304 wins over Range", request: .init(method: .get, ifNoneMatch: ["\"abc\""], range: ["bytes=0-1"]), expected: .notModified),
        Case(name: "412 wins over Range", request: .init(method: .get, ifMatch: ["\"x\""], range: ["bytes=0-1"]), expected: .preconditionFailed),
        // §14.2 Range only on GET
        Case(name: "Range on GET", request: .init(method: .get, range: ["bytes=0-1"]), expected: .partial(0...1)),
        Case(name: "Range on HEAD is ignored (nginx differs)", request: .init(method: .head, range: ["bytes=0-1"]), expected: .full),
        Case(name: "416", request: .init(method: .get, range: ["bytes=10000-"]), expected: .rangeNotSatisfiable),
        Case(name: "416 for -0", request: .init(method: .get, range: ["bytes=-0"]), expected: .rangeNotSatisfiable),
        Case(name: "unknown unit ignored", request: .init(method: .get, range: ["pages=1-2"]), expected: .full),
        // §13.1.5 If-Range
        Case(
            name: "If-Range strong tag matches",
            request: .init(method: .get, ifRange: ["\"abc\""], range: ["bytes=0-1"]),
            expected: .partial(0...1)
        ),
        Case(name: "If-Range other tag", request: .init(method: .get, ifRange: ["\"x\""], range: ["bytes=0-1"]), expected: .full),
        Case(name: "If-Range weak tag never matches", request: .init(method: .get, ifRange: ["W/\"abc\""], range: ["bytes=0-1"]), expected: .full),
        Case(name: "If-Range date equal", request: .init(method: .get, ifRange: [lastModified], range: ["bytes=0-1"]), expected: .partial(0...1)),
        Case(name: "If-Range date later is not equal", request: .init(method: .get, ifRange: [later], range: ["bytes=0-1"]), expected: .full),
        Case(name: "If-Range garbage", request: .init(method: .get, ifRange: ["nonsense"], range: ["bytes=0-1"]), expected: .full),
        Case(name: "If-Range without Range is ignored", request: .init(method: .get, ifRange: ["\"x\""]), expected: .full),
        Case(
            name: "If-Range false does not turn 416 into anything but 200",
            request: .init(method: .get, ifRange: ["\"x\""], range: ["bytes=20000-"]),
            expected: .full
        ),
    ]

    @Test("evaluation table", arguments: cases)
    func table(_ testCase: Case) {
        #expect(Self.plan(testCase.request) == testCase.expected)
    }

    @Test("the date form of If-Range needs a strong Last-Modified (§8.8.2.2)")
    func weakLastModified() {
        var weak = Self.representation
        weak.lastModifiedIsStrong = false
        #expect(Self.plan(.init(method: .get, ifRange: [Self.lastModified], range: ["bytes=0-1"]), weak) == .full)
        #expect(Self.plan(.init(method: .get, ifRange: ["\"abc\""], range: ["bytes=0-1"]), weak) == .partial(0...1))
    }

    @Test("a representation without Last-Modified ignores date preconditions")
    func noLastModified() {
        var undated = Self.representation
        undated.lastModified = nil
        #expect(Self.plan(.init(method: .get, ifModifiedSince: [Self.later]), undated) == .full)
        #expect(Self.plan(.init(method: .get, ifUnmodifiedSince: [Self.earlier]), undated) == .full)
        #expect(Self.plan(.init(method: .get, ifRange: [Self.lastModified], range: ["bytes=0-1"]), undated) == .full)
    }

    @Test("several ranges become multipart/byteranges")
    func multipart() {
        let expected = MultipartByteRanges(
            ranges: [0...99, 500...599],
            completeLength: 10_000,
            contentType: "application/octet-stream",
            boundary: "B"
        )
        #expect(Self.plan(.init(method: .get, range: ["bytes=0-99,500-599"])) == .multipart(expected))
    }

    @Test("multipart framing larger than the representation falls back to 200")
    func multipartAmplification() {
        var small = Self.representation
        small.length = 100
        #expect(Self.plan(.init(method: .get, range: ["bytes=0-0,2-2,4-4"]), small) == .full)
    }
}
