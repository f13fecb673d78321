import DepotTestSupport
import Foundation
import Testing

/// Access-log lines of the real binary, and X-Forwarded-For from trusted proxies only.
@Suite("Access log")
struct AccessLogTests {
    static func serve(trusting proxies: String?, _ body: (Int, DepotProcess) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data("hi\n".utf8), to: "public/a.txt")
            let depot = try DepotProcess.start(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: proxies.map { ["DEPOT_HTTP_TRUSTED_PROXIES": $0] } ?? [:],
                in: root
            )
            defer { depot.kill() }
            try await body(try await depot.waitForPort(), depot)
        }
    }

    static func requestLine(_ log: String, id: String) -> String? {
        log.split(separator: "\n").map(String.init).first { $0.contains("request") && $0.contains(id) }
    }

    @Test("one line a request, with its id (also sent as X-Request-Id), status and client")
    func line() async throws {
        try await Self.serve(trusting: "127.0.0.1") { port, depot in
            let response = try await RawHTTPConnection.with(port: port) {
                try await $0.request("GET", "/a.txt", headers: [("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Proto", "https")])
            }
            let id = try #require(response.header("X-Request-Id"))
            try await Task.sleep(for: .milliseconds(200))
            let line = try #require(Self.requestLine(depot.log, id: id))
            #expect(line.contains("client=203.0.113.9"))
            #expect(line.contains("scheme=https"))
            #expect(line.contains("status=200"))
            #expect(line.contains("path=/a.txt"))
            #expect(line.contains("method=GET"))
        }
    }

    @Test("X-Forwarded-For from an untrusted peer is ignored")
    func untrusted() async throws {
        try await Self.serve(trusting: nil) { port, depot in
            let response = try await RawHTTPConnection.with(port: port) {
                try await $0.request("GET", "/missing", headers: [("X-Forwarded-For", "203.0.113.9")])
            }
            #expect(response.status == 404)
            let id = try #require(response.header("X-Request-Id"))
            try await Task.sleep(for: .milliseconds(200))
            let line = try #require(Self.requestLine(depot.log, id: id))
            #expect(line.contains("client=127.0.0.1"))
            #expect(line.contains("status=404"))
        }
    }
}

extension AccessLogTests {
    @Test("publish tokens never reach the log, even at trace level")
    func secretsNotLogged() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let depot = try DepotProcess.start(
                ["serve", "--port", "0", "--public", "public", "--data", "data", "--log-level", "trace"],
                environment: ["DEPOT_PUBLISH_TOKENS": "tok-secret-4711"],
                in: root
            )
            defer { depot.kill() }
            let port = try await depot.waitForPort()
            try await RawHTTPConnection.with(port: port) { connection in
                let good = try await connection.request(
                    "PUT",
                    "/v1/files/a.txt",
                    headers: [("Authorization", "Bearer tok-secret-4711")],
                    body: Array("a\n".utf8)
                )
                #expect(good.status == 201)
                let bad = try await connection.request(
                    "PUT",
                    "/v1/files/a.txt",
                    headers: [("Authorization", "Bearer tok-guess-0815")],
                    body: Array("b\n".utf8)
                )
                #expect(bad.status == 401)
            }
            #expect(try await depot.stop() == 0)
            #expect(depot.log.contains("Published"))
            #expect(!depot.log.contains("tok-secret-4711"))
            #expect(!depot.log.contains("tok-guess-0815"))
        }
    }
}
