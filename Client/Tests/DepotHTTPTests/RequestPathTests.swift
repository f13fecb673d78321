import Testing

@testable import DepotHTTP

/// RFC 3986 §2.1 and §3.3: a path is decoded once, and nothing in it may climb out of the root.
@Suite("Request paths (RFC 3986 §3.3)")
struct RequestPathTests {
    @Test(
        "decodes legitimate paths",
        arguments: [
            ("/", [String](), true),
            ("/index.html", ["index.html"], false),
            ("/css/site.css", ["css", "site.css"], false),
            ("/docs/", ["docs"], true),
            ("/v1..2.txt", ["v1..2.txt"], false),
            ("/..hidden-not", ["..hidden-not"], false),
            ("/a%20b.txt", ["a b.txt"], false),
            ("/caf%C3%A9.txt", ["caf\u{e9}.txt"], false),
            ("/100%25.txt", ["100%.txt"], false),
            ("/%252e%252e", ["%2e%2e"], false),  // decoded once only
        ]
    )
    func decodes(raw: String, segments: [String], trailingSlash: Bool) throws {
        let path = try RequestPath(decoding: raw)
        #expect(path.segments == segments)
        #expect(path.hasTrailingSlash == trailingSlash)
    }

    @Test(
        "refuses paths that could escape or smuggle",
        arguments: [
            ("/../etc/passwd", RequestPath.Problem.dotSegment),
            ("/a/../../b", .dotSegment),
            ("/%2e%2e/etc/passwd", .dotSegment),
            ("/%2E%2E%2Fetc", .forbiddenCharacter),
            ("/./a", .dotSegment),
            ("/a/.", .dotSegment),
            ("/a%00.txt", .forbiddenCharacter),
            ("/a%5c..%5cb", .forbiddenCharacter),
            ("/a\\b", .forbiddenCharacter),
            ("/a%2Fb", .forbiddenCharacter),
            ("/a%0d%0aSet-Cookie", .forbiddenCharacter),
            ("/a//b", .emptySegment),
            ("//etc/passwd", .emptySegment),
            ("/a%zz", .malformedEscape),
            ("/a%4", .malformedEscape),
            ("/%ff%fe", .notUTF8),
            ("relative", .notAbsolute),
        ]
    )
    func refuses(raw: String, problem: RequestPath.Problem) {
        #expect(throws: problem) { try RequestPath(decoding: raw) }
    }

    /// The shortcut for plain paths must agree with decoding wherever it answers: on every path
    /// above and on 20,000 random ones made of the characters that matter.
    @Test("the plain-path shortcut gives what decoding gives, or leaves the path to it")
    func plainPathShortcut() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab./%2e-_~Z9\\?")
        var samples = ["/", "/index.html", "/css/site.css", "/docs/", "/v1..2.txt", "/...", "/a/...", "/.well-known/x", "/./a", "/a/..", "/a//b"]
        for _ in 0..<20_000 {
            samples.append("/" + String((0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        var shortcuts = 0
        for raw in samples {
            guard let plain = RequestPath.plainRelativePath(raw[...]) else { continue }
            shortcuts += 1
            let decoded = try? RequestPath(decoding: raw)
            #expect(decoded?.relativePath == String(plain) && decoded?.hasTrailingSlash == false, "\(raw)")
        }
        #expect(RequestPath.plainRelativePath("/css/site.css") == "css/site.css")
        #expect(RequestPath.plainRelativePath("/a%20b") == nil && RequestPath.plainRelativePath("/docs/") == nil)
        #expect(shortcuts > 1_000)
    }
}
