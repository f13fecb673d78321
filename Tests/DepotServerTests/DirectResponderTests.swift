import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// The direct path (``DirectResponder``, `http.directResponses`) answers 304s and in-memory
/// content below Hummingbird. It must answer exactly as Hummingbird's path does, keep
/// pipelined responses in order, and leave everything else alone.
@Suite("Direct responses")
struct DirectResponderTests {
    /// Fields that differ between any two answers.
    static let varying: Set<String> = ["date", "x-request-id"]
    /// Fields that depend on when a file was published or written, which differs between two
    /// servers.
    static let publishTimeDependent: Set<String> = ["etag", "last-modified", "repr-digest"]

    static func answers(direct: Bool, requests: [(String, String, [(String, String)])]) async throws -> [String] {
        try await LiveServer.withPublishing(configuration: .init(directResponses: direct), prepare: Fixture.standardFolder) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let auth = ("Authorization", "Bearer \(LiveServer.token)")
                _ = try await connection.request("PUT", "/v1/files/db/catalog.sqlite", headers: [auth], body: Array(Fixture.text))
                var answers: [String] = []
                for (method, target, headers) in requests {
                    var resolved = headers
                    if let index = resolved.firstIndex(where: { $0.1 == "CURRENT" }) {
                        let etag = try await connection.request("HEAD", target).header("ETag") ?? ""
                        resolved[index].1 = etag
                    }
                    let response = try await connection.request(method, target, headers: resolved)
                    // The manifest, published files and index.html (written without a fixed date).
                    let published = target.hasPrefix("/manifest.json") || target.hasPrefix("/files/") || target == "/"
                    let fields = response.fields.filter { !Self.varying.contains($0.name.lowercased()) }
                        .map { field in
                            let name = field.name.lowercased()
                            return published && Self.publishTimeDependent.contains(name) ? "\(name): …" : "\(name): \(field.value)"
                        }
                        .sorted()
                    answers.append(
                        "\(method) \(target) \(headers) → \(response.status)\n\(fields.joined(separator: "\n"))\n\(response.body.count) bytes"
                    )
                }
                return answers
            }
        }
    }

    @Test("every answer is the same, field for field, with and without the direct path")
    func sameAnswers() async throws {
        let requests: [(String, String, [(String, String)])] = [
            ("GET", "/text.txt", [("If-None-Match", "CURRENT")]),
            ("GET", "/text.txt", [("If-None-Match", "CURRENT"), ("Accept-Encoding", "gzip")]),
            ("HEAD", "/text.txt", [("If-None-Match", "CURRENT")]),
            ("GET", "/text.txt", [("If-Modified-Since", "Sun, 01 Jan 2090 00:00:00 GMT")]),
            ("GET", "/manifest.json", []),
            ("GET", "/manifest.json", [("Accept-Encoding", "gzip")]),
            ("HEAD", "/manifest.json", []),
            ("GET", "/manifest.json", [("If-None-Match", "CURRENT")]),
            ("GET", "/manifest.json?x=1", []),
            ("GET", "/files/db/catalog.sqlite.sha256", []),
            ("GET", "/files/db/catalog.sqlite", [("If-None-Match", "CURRENT")]),
            ("GET", "/", [("If-None-Match", "CURRENT")]),
            ("GET", "/manifest.json", [("Range", "bytes=0-9")]),
            ("GET", "/text.txt", [("If-Match", "\"nope\"")]),
            ("GET", "/missing", []),
            ("GET", "/files/missing", [("If-None-Match", "*")]),
        ]
        let direct = try await Self.answers(direct: true, requests: requests)
        let hummingbird = try await Self.answers(direct: false, requests: requests)
        for (mine, theirs) in zip(direct, hummingbird) {
            #expect(mine == theirs)
        }
    }

    @Test("pipelined requests keep their order across both paths")
    func pipelinedOrder() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                // 304 (direct), 200 from a file (Hummingbird), 304 (waits for the 200), 404, 304.
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                try await connection.send("GET", "/noise.bin")
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                try await connection.send("GET", "/missing")
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                #expect(try await connection.readResponse().status == 304)
                let noise = try await connection.readResponse()
                #expect(noise.status == 200 && noise.body == Array(Fixture.noise))
                #expect(try await connection.readResponse().status == 304)
                #expect(try await connection.readResponse().status == 404)
                #expect(try await connection.readResponse().status == 304)
            }
        }
    }

    @Test("HTTP/1.0 and Connection: close are left to Hummingbird, which answers them")
    func leftToHummingbird() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                try await connection.sendRaw(Array("GET /text.txt HTTP/1.0\r\nIf-None-Match: \(etag)\r\n\r\n".utf8))
                #expect(try await connection.readResponse().status == 304)
            }
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                let closing = try await connection.request("GET", "/text.txt", headers: [("If-None-Match", etag), ("Connection", "close")])
                #expect(closing.status == 304)
            }
        }
    }
}
