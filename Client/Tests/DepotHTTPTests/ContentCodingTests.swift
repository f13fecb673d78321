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
        #expect(ContentCoding.negotiate(acceptEncoding: lines, available: [.gzip: 100]) == expected)
    }

    @Test("without a variant the answer is identity")
    func noVariant() {
        #expect(ContentCoding.negotiate(acceptEncoding: ["gzip, br, zstd, *"], available: [:]) == .identity)
    }

    /// gzip 100 bytes, br 80, zstd 85: br is the smallest.
    static let three: [ContentCoding: Int64] = [.gzip: 100, .br: 80, .zstd: 85]

    @Test(
        "with gzip, br and zstd variants: the highest weight, the smallest among equals, each case against §12.5.3's text",
        arguments: [
            // "br": acceptable; the others unlisted, so not acceptable.
            (["br"], three, ContentCoding.br),
            (["gzip, zstd"], three, .zstd),  // equal weights: the smaller of the two acceptable
            (["gzip, deflate, br, zstd"], three, .br),  // what browsers send
            (["*"], three, .br),  // "*" matches every coding not listed
            (["br;q=0, *"], three, .zstd),  // q=0: "not acceptable", the rest by "*"
            (["gzip;q=1, br;q=0.5"], three, .gzip),  // the weight first, size second
            (["br;q=0.5, identity"], three, .identity),  // identity weighed higher
            (["br, identity;q=0"], three, .br),
            (["compress, deflate"], three, .identity),  // unknown codings are ignored
            (["zstd"], [.gzip: 100], .identity),  // acceptable, but no such variant
            (["identity;q=0"], three, .identity),  // nothing acceptable: identity, not 406
            (["x-gzip"], three, .gzip),
            (["gzip, br"], [.gzip: 50, .br: 80], .gzip),  // a larger br than gzip is not chosen
            (["br;q=0.9, zstd;q=0.9, gzip;q=0.9"], [.gzip: 90, .br: 90, .zstd: 90], .br),  // a tie of sizes: br, zstd, gzip
        ] as [([String], [ContentCoding: Int64], ContentCoding)]
    )
    func negotiatesAmongVariants(lines: [String], available: [ContentCoding: Int64], expected: ContentCoding) {
        #expect(ContentCoding.negotiate(acceptEncoding: lines, available: available) == expected)
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
