import Testing

@testable import DepotHTTP

/// RFC 9110 §5.6.7: the three date forms a recipient accepts, and IMF-fixdate output.
@Suite("HTTP dates (RFC 9110 §5.6.7)")
struct HTTPDateTests {
    static let now = HTTPDate(secondsSince1970: 1_795_000_000)  // 2026-11-18
    static let rfcExample: Int64 = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(
        "parses the three forms of the RFC's example",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "  Sun, 06 Nov 1994 08:49:37 GMT ",
            "sun, 06 nov 1994 08:49:37 gmt",
        ]
    )
    func parsesForms(text: String) {
        #expect(HTTPDate(parsing: text, now: Self.now)?.secondsSince1970 == Self.rfcExample)
    }

    @Test(
        "ignores invalid dates",
        arguments: [
            "", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 29 Feb 2023 00:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT extra", "Sun Nov 6 08:49:37 1994",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Xday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z", "Sun, 06 Nov 1994 08:61:37 GMT",
        ]
    )
    func ignoresInvalid(text: String) {
        #expect(HTTPDate(parsing: text, now: Self.now) == nil)
    }

    @Test("accepts 29 February in a leap year")
    func leapDay() {
        #expect(HTTPDate(parsing: "Thu, 29 Feb 2024 12:00:00 GMT", now: Self.now)?.imfFixdate == "Thu, 29 Feb 2024 12:00:00 GMT")
    }

    /// "…MUST interpret a timestamp that appears to be more than 50 years in the future as
    /// representing the most recent year in the past that had the same last two digits."
    @Test(
        "RFC 850 two-digit years",
        arguments: [("Friday, 01-Jan-76 00:00:00 GMT", 2076), ("Friday, 01-Jan-77 00:00:00 GMT", 1977)]
    )
    func twoDigitYears(text: String, year: Int) {
        let parsed = HTTPDate(parsing: text, now: Self.now)
        #expect(parsed.map { CivilDate(daysSince1970: HTTPDate.floorDivide($0.secondsSince1970, 86_400)).year } == year)
    }

    @Test(
        "formats IMF-fixdate",
        arguments: [
            (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"),
            (rfcExample, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (4_102_444_799, "Thu, 31 Dec 2099 23:59:59 GMT"),
            (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        ]
    )
    func formats(seconds: Int64, text: String) {
        #expect(HTTPDate(secondsSince1970: seconds).imfFixdate == text)
        #expect(HTTPDate(parsing: text, now: Self.now)?.secondsSince1970 == seconds)
    }

    @Test("round-trips every day over four centuries")
    func roundTrip() {
        for days in stride(from: Int64(-200_000), through: 200_000, by: 37) {
            let date = HTTPDate(secondsSince1970: days * 86_400 + 45_296)
            #expect(HTTPDate(parsing: date.imfFixdate, now: Self.now) == date)
        }
    }
}
