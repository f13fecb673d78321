import DepotTestSupport
import Foundation
import Testing

/// Preconditions (RFC 9110 §13) through the router in process: the direct path sends the same
/// ResourceAnswer (DirectResponderTests compare the two). A 304's fields on the wire (§15.4.5:
/// Date, no Content-Length) are the connection's: ConnectionStreamingTests, over a socket.
@Suite("Conditional requests")
struct ConditionalRequestTests {
    static let earlier = "Tue, 14 Nov 2023 22:13:19 GMT"

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let headers: [(String, String)]
        let status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "If-None-Match current", method: "GET", headers: [("If-None-Match", Fixture.standardETag)], status: 304),
        Case(name: "If-None-Match weak form", method: "GET", headers: [("If-None-Match", "W/\(Fixture.standardETag)")], status: 304),
        Case(name: "If-None-Match in a list", method: "GET", headers: [("If-None-Match", "\"old\", \(Fixture.standardETag)")], status: 304),
        Case(
            name: "If-None-Match on a second line",
            method: "GET",
            headers: [("If-None-Match", "\"old\""), ("If-None-Match", Fixture.standardETag)],
            status: 304
        ),
        Case(name: "If-None-Match *", method: "GET", headers: [("If-None-Match", "*")], status: 304),
        Case(name: "If-None-Match other", method: "GET", headers: [("If-None-Match", "\"old\"")], status: 200),
        Case(name: "If-None-Match on HEAD", method: "HEAD", headers: [("If-None-Match", Fixture.standardETag)], status: 304),
        Case(name: "If-Modified-Since equal", method: "GET", headers: [("If-Modified-Since", Fixture.standardLastModified)], status: 304),
        Case(name: "If-Modified-Since earlier", method: "GET", headers: [("If-Modified-Since", earlier)], status: 200),
        Case(name: "If-Modified-Since invalid", method: "GET", headers: [("If-Modified-Since", "last week")], status: 200),
        Case(
            name: "If-None-Match wins over If-Modified-Since",
            method: "GET",
            headers: [("If-None-Match", Fixture.standardETag), ("If-Modified-Since", earlier)],
            status: 304
        ),
        Case(
            name: "If-Modified-Since ignored beside If-None-Match",
            method: "GET",
            headers: [("If-None-Match", "\"old\""), ("If-Modified-Since", Fixture.standardLastModified)],
            status: 200
        ),
        Case(name: "If-Match current", method: "GET", headers: [("If-Match", Fixture.standardETag)], status: 200),
        Case(name: "If-Match *", method: "GET", headers: [("If-Match", "*")], status: 200),
        Case(name: "If-Match other", method: "GET", headers: [("If-Match", "\"old\"")], status: 412),
        Case(name: "If-Match weak", method: "GET", headers: [("If-Match", "W/\(Fixture.standardETag)")], status: 412),
        Case(name: "If-Unmodified-Since earlier", method: "GET", headers: [("If-Unmodified-Since", earlier)], status: 412),
        Case(name: "If-Unmodified-Since equal", method: "GET", headers: [("If-Unmodified-Since", Fixture.standardLastModified)], status: 200),
        Case(
            name: "If-Unmodified-Since ignored beside a true If-Match",
            method: "GET",
            headers: [("If-Match", Fixture.standardETag), ("If-Unmodified-Since", earlier)],
            status: 200
        ),
        Case(name: "412 before 304", method: "GET", headers: [("If-Match", "\"old\""), ("If-None-Match", Fixture.standardETag)], status: 412),
        Case(name: "304 before Range", method: "GET", headers: [("If-None-Match", Fixture.standardETag), ("Range", "bytes=0-1")], status: 304),
    ]

    @Test("status table", arguments: cases)
    func statusTable(_ testCase: Case) async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request(testCase.method, "/text.txt", headers: testCase.headers)
                #expect(response.status == testCase.status)
            }
        }
    }

    @Test("the gzip variant is validated by its own ETag")
    func gzipValidators() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let gzip = try await connection.request("GET", "/text.txt", headers: [("Accept-Encoding", "gzip")])
                let gzipTag = try #require(gzip.header("ETag"))
                let revalidated = try await connection.request(
                    "GET",
                    "/text.txt",
                    headers: [("Accept-Encoding", "gzip"), ("If-None-Match", gzipTag)]
                )
                #expect(revalidated.status == 304)
                #expect(revalidated.header("ETag") == gzipTag)
                // The gzip tag does not validate the identity variant.
                let identity = try await connection.request("GET", "/text.txt", headers: [("If-None-Match", gzipTag)])
                #expect(identity.status == 200)
            }
        }
    }

    @Test("412 has a short body and no cacheable fields")
    func preconditionFailedBody() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/text.txt", headers: [("If-Match", "\"old\"")])
                #expect(response.status == 412)
                #expect(response.body.count < 200)
                #expect(response.header("Cache-Control") == nil)
                #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            }
        }
    }
}
