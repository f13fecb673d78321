import DepotTestSupport
import Foundation
import Testing

/// Access-log lines of the real binary, and X-Forwarded-For from trusted proxies only.
@Suite("Access log")
struct AccessLogTests {
    static func serve(trusting proxies: String?, _ body: (Int, DepotProcess) async throws -> Void) async throws {
        try await serve(environment: proxies.map { ["DEPOT_HTTP_TRUSTED_PROXIES": $0] } ?? [:], body)
    }

    /// `depot serve` over a public folder holding `a.txt` (3 bytes) and `big.bin` (`bigSize`).
    static func serve(environment: [String: String], _ body: (Int, DepotProcess) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data("hi\n".utf8), to: "public/a.txt")
            try root.write(Data(count: bigSize), to: "public/big.bin")
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: environment,
                in: root
            ) { depot in
                try await body(try await depot.waitForPort(), depot)
            }
        }
    }

    static let bigSize = 64 << 20

    /// The value of `key=` in a `depot` format line.
    static func value(_ key: String, in line: String) -> String? {
        line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// The access-log line holding `id`, waited for: lines are written within
    /// `log.requestsFlushSeconds` (0.5 s) of the response's end.
    static func requestLine(_ depot: DepotProcess, id: String) async throws -> String? {
        // Hang guard: slowest seen 8.9 s under two busy loops (the whole test).
        try await poll(for: .seconds(120)) {
            depot.log.split(separator: "\n").map(String.init).first { $0.contains(" request ") && $0.contains(id) }
        }
    }

    @Test("one line a request, with its id (also sent as X-Request-Id), status and client")
    func line() async throws {
        try await Self.serve(trusting: "127.0.0.1") { port, depot in
            let response = try await RawHTTPConnection.with(port: port) {
                try await $0.request("GET", "/a.txt", headers: [("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Proto", "https")])
            }
            let id = try #require(response.header("X-Request-Id"))
            let line = try #require(try await Self.requestLine(depot, id: id))
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
            let line = try #require(try await Self.requestLine(depot, id: id))
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
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data", "--log-level", "trace"],
                environment: ["DEPOT_PUBLISH_TOKENS": "tok-secret-4711"],
                in: root
            ) { depot in
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
}

extension AccessLogTests {
    @Test(
        "a line is written when the response ends: a cut download logs the bytes that went out and its real duration",
        arguments: [true, false]
    )
    func cutDownload(directResponses: Bool) async throws {
        try await Self.serve(environment: ["DEPOT_HTTP_DIRECT_RESPONSES": "\(directResponses)"]) { port, depot in
            // A whole download logs every byte.
            let whole = try await runCurl(["-s", "-o", "/dev/null", "-D", "-", "http://127.0.0.1:\(port)/big.bin"])
            let wholeID = try #require(
                String(decoding: whole.standardOutput, as: UTF8.self).split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-request-id:") }
            ).split(separator: " ").last.map(String.init)
            let wholeLine = try #require(try await Self.requestLine(depot, id: wholeID ?? "none"))
            #expect(Self.value("bytes", in: wholeLine) == "\(Self.bigSize)")

            // A client that reads 2 MB a second and gives up after 1.5 s: it got about 3 MB of
            // the 64 MiB, and the log says about that much went out, not the Content-Length.
            let cut = try await runCurl(
                ["-s", "-o", "/dev/null", "-D", "-", "--limit-rate", "2M", "--max-time", "1.5", "http://127.0.0.1:\(port)/big.bin"]
            )
            #expect(cut.exitCode == 28, "curl timed out")
            let cutID = try #require(
                String(decoding: cut.standardOutput, as: UTF8.self).split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-request-id:") }
            ).split(separator: " ").last.map(String.init)
            let cutLine = try #require(try await Self.requestLine(depot, id: cutID ?? "none"))
            #expect(Self.value("status", in: cutLine) == "200")
            let bytes = try #require(Self.value("bytes", in: cutLine).flatMap(Int.init))
            #expect(bytes >= 1 << 20, "at least what curl read went out: \(cutLine)")
            #expect(bytes < Self.bigSize / 2, "not the whole file: \(cutLine)")
            let milliseconds = try #require(Self.value("ms", in: cutLine).flatMap(Double.init))
            #expect(milliseconds >= 1000, "the duration runs to the cut: \(cutLine)")
        }
    }

    @Test("log.requestsFormat combined writes NCSA combined lines, which log tools read as they are")
    func combined() async throws {
        try await Self.serve(environment: ["DEPOT_LOG_REQUESTS_FORMAT": "combined"]) { port, depot in
            let response = try await RawHTTPConnection.with(port: port) {
                try await $0.request("GET", "/a.txt?x=1", headers: [("User-Agent", "probe/1"), ("Referer", "http://example.com/")])
            }
            #expect(response.status == 200)
            // Hang guard: slowest seen 8.9 s under two busy loops (the whole test).
            let line = try await poll(for: .seconds(120)) {
                depot.log.split(separator: "\n").map(String.init).first { $0.contains("\"GET /a.txt?x=1 HTTP/1.1\"") }
            }
            let pattern =
                #/^127\.0\.0\.1 - - \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET /a\.txt\?x=1 HTTP/1\.1" 200 3 "http://example\.com/" "probe/1"$/#
            #expect(try #require(line).wholeMatch(of: pattern) != nil, "\(line ?? "")")
        }
    }

    @Test(
        "bad log settings stop the server with one clear line",
        arguments: [
            ("DEPOT_LOG_REQUESTS_FORMAT", "json", "log.requestsFormat must be depot or combined"),
            ("DEPOT_LOG_REQUESTS_BUFFER_BYTES", "100", "log.requestsBufferBytes must be at least"),
            ("DEPOT_LOG_REQUESTS_FILE", "/nonexistent/dir/access.log", "Cannot open the access log"),
        ]
    )
    func badSettings(key: String, value: String, message: String) async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data("hi\n".utf8), to: "public/a.txt")
            try await DepotProcess.with(["serve", "--port", "0", "--public", "public", "--data", "data"], environment: [key: value], in: root) {
                depot in
                let status = try await depot.waitForExit()
                #expect(status != 0)
                #expect(depot.log.contains(message), "\(depot.log)")
            }
        }
    }
}
