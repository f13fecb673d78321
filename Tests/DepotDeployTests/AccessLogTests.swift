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
