import DepotServer
import DepotTestSupport
import Foundation
import Testing

// Real clients against a live server: curl, zsync and REDbot speak HTTP as they do in the
// field, so a socket is their subject. One file: they share it (what a real client makes of
// Depot's answers); each keeps its suite.

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

    @Test("curl --compressed takes brotli or zstd from /files/… and decodes it to the published bytes")
    func curlCompressed() async throws {
        try await LiveServer.withVariants { server, connection in
            _ = try await connection.publishedEntry("db/catalog.sqlite", Fixture.catalogRows)
            try await withTemporaryDirectory { folder in
                let output = folder.appendingPathComponent("catalog")
                let result = try await ChildProcess.run(
                    "curl",
                    ["-sS", "--compressed", "-o", output.path, "-w", "%{size_download}", server.url("/files/db/catalog.sqlite")]
                )
                #expect(try Data(contentsOf: output) == Fixture.catalogRows)
                let downloaded = Int(String(decoding: result.standardOutput, as: UTF8.self)) ?? 0
                #expect(downloaded > 0 && downloaded < Fixture.catalogRows.count / 3)
            }
        }
    }
}

/// zsync 0.6.2 (Debian's zsync and zsyncmake) against a file of the public folder: it fetches
/// the blocks it lacks with pipelined multi-range GETs, and an HTTP/1.0 GET for the `.zsync`.
@Suite("zsync against a live server")
struct ZsyncTests {
    @Test("zsync rebuilds a file from a damaged copy in a few requests, and the result is the file")
    func zsyncFromDamagedCopy() async throws {
        let file = Data(Fixture.noise + Fixture.text + Fixture.noise.reversed())
        try await withTemporaryDirectory { work in
            try file.write(to: work.appendingPathComponent("file.bin"))
            // A relative URL: resolved against the .zsync's own, whatever port the server gets.
            let made = try await ChildProcess.run("zsyncmake", ["-b", "2048", "-u", "file.bin", "-o", "file.bin.zsync", "file.bin"], in: work)
            #expect(made.status == 0, "\(String(decoding: made.standardError, as: UTF8.self))")
            let control = try Data(contentsOf: work.appendingPathComponent("file.bin.zsync"))
            try await Self.zsync(file: file, control: control)
        }
    }

    static func zsync(file: Data, control: Data) async throws {
        let prepare: (URL) throws -> Void = { folder in
            try file.write(to: folder.appendingPathComponent("file.bin"))
            try control.write(to: folder.appendingPathComponent("file.bin.zsync"))
        }
        try await LiveServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { folder in
                var damaged = file
                for offset in stride(from: 0, to: damaged.count, by: 40_000) { damaged[offset..<offset + 100] = Data(repeating: 0x78, count: 100) }
                let seed = try folder.write(damaged, to: "seed.bin")
                let output = folder.appendingPathComponent("out.bin")
                let result = try await ChildProcess.run(
                    "zsync",
                    ["-q", "-i", seed.path, "-o", output.path, server.url("/file.bin.zsync")],
                    in: folder,
                    // Hang guard: slowest seen 0.6 s under two busy loops (the whole test).
                    timeout: .seconds(60)
                )
                #expect(result.status == 0, "\(String(decoding: result.standardError, as: UTF8.self))")
                #expect(try Data(contentsOf: output) == file)
                // A few multi-range requests, not one a block (nor a million, as zsync made
                // when it refused a multipart body without a CRLF before its first delimiter).
                let ranged = server.requests.total(pathPrefix: "/file.bin", pathSuffix: ".bin")
                #expect((1...10).contains(ranged), "\(ranged) requests for the file")
            }
        }
    }
}

/// REDbot (`scripts/lib/redbotcheck.py`) judging answers of a live server.
@Suite("REDbot against a live server")
struct REDbotTests {
    /// `scripts/lib/redbotcheck.py`: REDbot's checks of one answer, asked with given fields.
    static let redbot = PackageRoot.url
        .appendingPathComponent("scripts/lib/redbotcheck.py")

    @Test(
        "REDbot finds nothing bad in a brotli or zstd answer of /files/…, and its range, If-None-Match and If-Modified-Since checks pass",
        arguments: ["br", "zstd"]
    )
    func redbotCheck(coding: String) async throws {
        try await LiveServer.withVariants { server, connection in
            _ = try await connection.publishedEntry("db/catalog.sqlite", Fixture.catalogRows)
            let result = try await ChildProcess.run(
                "python3",
                [Self.redbot.path, server.url("/files/db/catalog.sqlite"), "Accept-Encoding: \(coding)"]
            )
            let report = String(decoding: result.standardOutput, as: UTF8.self)
            #expect(result.status == 0, "\(report)")
            #expect(report.contains("Content-Encoding: \(coding)"), "\(report)")
            for passed in [
                "bad: 0", "A ranged request returned the correct partial content", "If-None-Match conditional requests are supported",
                "If-Modified-Since conditional requests are supported", "The Content-Length header is correct",
            ] {
                #expect(report.contains(passed), "\(passed): \(report)")
            }
        }
    }
}
