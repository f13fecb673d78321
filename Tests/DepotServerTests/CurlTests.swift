import DepotTestSupport
import Foundation
import Testing

/// The client patterns of the seed articles, run with the real `curl`.
@Suite("curl against a live server")
struct CurlTests {
    @Test("curl -C - resumes a partial download (Range on the wire)")
    func resume() async throws {
        try await LiveServer.standard { server in
            try await withTemporaryDirectory { folder in
                let output = folder.appendingPathComponent("noise.bin")
                try Fixture.noise.prefix(30_000).write(to: output)
                let trace = folder.appendingPathComponent("trace.txt")
                let result = try await runCurl(["-C", "-", "-o", output.path, "--trace-ascii", trace.path, server.url("/noise.bin")])
                #expect(result.exitCode == 0, "\(result.standardError)")
                #expect(try Data(contentsOf: output) == Fixture.noise)
                let log = try String(contentsOf: trace, encoding: .utf8)
                #expect(log.contains("Range: bytes=30000-"))
                #expect(log.contains("HTTP/1.1 206"))
                #expect(log.contains("Content-Range: bytes 30000-99999/100000"))
            }
        }
    }

    @Test("curl --compressed receives gzip and decodes it to the original")
    func compressed() async throws {
        try await LiveServer.standard { server in
            try await withTemporaryDirectory { folder in
                let output = folder.appendingPathComponent("text.txt")
                let headers = folder.appendingPathComponent("headers.txt")
                let result = try await runCurl(["--compressed", "-D", headers.path, "-o", output.path, server.url("/text.txt")])
                #expect(result.exitCode == 0, "\(result.standardError)")
                #expect(try Data(contentsOf: output) == Fixture.text)
                let head = try String(contentsOf: headers, encoding: .utf8).lowercased()
                #expect(head.contains("content-encoding: gzip"))
                #expect(head.contains("vary: accept-encoding"))
            }
        }
    }

    @Test("curl -z downloads only when the file is newer than the date")
    func timeCondition() async throws {
        try await LiveServer.standard { server in
            let notNewer = try await runCurl([
                "-z", "Tue, 14 Nov 2023 22:13:20 GMT", "-w", "%{http_code}", "-o", "/dev/null", server.url("/text.txt"),
            ])
            #expect(String(decoding: notNewer.standardOutput, as: UTF8.self) == "304")
            let newer = try await runCurl(["-z", "Tue, 14 Nov 2023 22:13:19 GMT", "-w", "%{http_code}", "-o", "/dev/null", server.url("/text.txt")])
            #expect(String(decoding: newer.standardOutput, as: UTF8.self) == "200")
            let unmodifiedSince = try await runCurl([
                "-z", "-Tue, 14 Nov 2023 22:13:19 GMT", "-w", "%{http_code}", "-o", "/dev/null", server.url("/text.txt"),
            ])
            #expect(String(decoding: unmodifiedSince.standardOutput, as: UTF8.self) == "412")
        }
    }

    @Test("curl --etag-save then --etag-compare gets 304")
    func etagCompare() async throws {
        try await LiveServer.standard { server in
            try await withTemporaryDirectory { folder in
                let etagFile = folder.appendingPathComponent("etag.txt")
                let first = try await runCurl(["--etag-save", etagFile.path, "-w", "%{http_code}", "-o", "/dev/null", server.url("/text.txt")])
                #expect(String(decoding: first.standardOutput, as: UTF8.self) == "200")
                let saved = try String(contentsOf: etagFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(saved == "\"\(Fixture.sha256(Fixture.text))\"")
                let second = try await runCurl(["--etag-compare", etagFile.path, "-w", "%{http_code}", "-o", "/dev/null", server.url("/text.txt")])
                #expect(String(decoding: second.standardOutput, as: UTF8.self) == "304")
            }
        }
    }

    @Test("curl -r fetches a suffix range exactly")
    func suffixRange() async throws {
        try await LiveServer.standard { server in
            let result = try await runCurl(["-r", "-100", server.url("/noise.bin")])
            #expect(result.standardOutput == Fixture.noise.suffix(100))
        }
    }
}
