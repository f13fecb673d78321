import Testing

@testable import DepotHTTP

/// RFC 9110 §12.5.3 (Accept-Encoding) and §12.4.2 (quality values).
@Suite("Content coding negotiation (RFC 9110 §12.5.3)")
struct ContentCodingTests {
    @Test(
        "chooses identity or gzip",
        arguments: [
            ([], ContentCoding.identity),
            ([""], .identity),
            (["gzip"], .gzip),
            (["GZIP"], .gzip),
            (["x-gzip"], .gzip),
            (["gzip, deflate, br"], .gzip),
            (["deflate, br"], .identity),
            (["*"], .gzip),
            (["gzip;q=0"], .identity),
            (["gzip; q=0.000"], .identity),
            (["*;q=0"], .identity),  // identity excluded too, but sent anyway
            (["gzip;q=0.5, identity;q=0.8"], .identity),
            (["gzip;q=0.8, identity;q=0.5"], .gzip),
            (["gzip;q=0.5"], .gzip),  // an unlisted identity expresses no preference
            (["gzip;q=0.5, *;q=0.8"], .identity),
            (["gzip;q=0.5, identity;q=0"], .gzip),
            (["identity;q=0"], .identity),  // nothing acceptable: identity, not 406
            (["*;q=0.3, gzip;q=0"], .identity),
            (["br", "gzip"], .gzip),  // several field lines
            (["gzip;q=1.5"], .identity),  // invalid qvalue: element ignored
            (["gzip;q=0.1234"], .identity),
            (["gzip;Q=1"], .gzip),
            (["gzip;level=9;q=1"], .gzip),
        ]
    )
    func negotiates(lines: [String], expected: ContentCoding) {
        #expect(ContentCoding.negotiate(acceptEncoding: lines, gzipAvailable: true) == expected)
    }

    @Test("without a gzip variant the answer is identity")
    func noVariant() {
        #expect(ContentCoding.negotiate(acceptEncoding: ["gzip"], gzipAvailable: false) == .identity)
    }

    @Test("quality values (§12.4.2)", arguments: [("1", 1000), ("1.000", 1000), ("0.5", 500), ("0.05", 50), ("0.", 0), ("0", 0)])
    func qvalues(text: String, value: Int) {
        #expect(ContentCoding.parseQValue(Substring(text)) == value)
    }

    @Test("invalid quality values", arguments: ["2", "1.001", "0.0001", ".5", "", "a", "-1"])
    func invalidQValues(text: String) {
        #expect(ContentCoding.parseQValue(Substring(text)) == nil)
    }
}
