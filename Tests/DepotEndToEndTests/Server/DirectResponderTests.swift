import DepotServer
import DepotTestSupport
import Foundation
import NIOCore
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

    /// Each request's answer as text, the server's `depot_http_*` metrics lines after them, and
    /// how many the direct path answered.
    static func answers(
        direct: Bool,
        memoryCacheBytes: Int,
        logsRequests: Bool,
        requests: [(String, String, [(String, String)])]
    ) async throws -> (answers: [String], metrics: [String], answeredDirectly: Int) {
        var configuration = ServerConfiguration(directResponses: direct, memoryCacheBytes: memoryCacheBytes)
        configuration.logsRequests = logsRequests
        return try await LiveServer.withPublishing(configuration: configuration, prepare: Fixture.standardFolder) { server in
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
                    // The manifest lists publish times: its bytes differ between the two servers, and
                    // so does the length of its gzip form; the length of the JSON does not.
                    let gzippedManifest = target.hasPrefix("/manifest.json") && response.header("Content-Encoding") == "gzip"
                    let fields = response.fields.filter { !Self.varying.contains($0.name.lowercased()) }
                        .map { field in
                            let name = field.name.lowercased()
                            let timeDependent = Self.publishTimeDependent.contains(name) || (gzippedManifest && name == "content-length")
                            return published && timeDependent ? "\(name): …" : "\(name): \(field.value)"
                        }
                        .sorted()
                    let body: String
                    if gzippedManifest {
                        body = "\(try Fixture.gunzip(response.body).count) bytes of JSON"
                    } else if target.hasPrefix("/manifest.json") {
                        body = "\(response.body.count) bytes"
                    } else {
                        body = "\(response.body.count) bytes \(Fixture.sha256(response.body))"
                    }
                    answers.append("\(method) \(target) \(headers) → \(response.status)\n\(fields.joined(separator: "\n"))\n\(body)")
                }
                let answeredDirectly = server.requests.answeredDirectly
                // By route, method and status: the same labels from both paths. The metrics
                // request itself is counted after this text is made. The manifest's bytes are
                // left out: its gzip length depends on the publish times it lists; so are the
                // readiness polls of the fixture waiting for the public folder's scan.
                let metrics = String(decoding: try await connection.request("GET", "/metrics").body, as: UTF8.self)
                    .split(separator: "\n").filter {
                        $0.hasPrefix("depot_http_") && !$0.hasPrefix("depot_http_response_bytes_total{route=\"/manifest.json\"}")
                            && !$0.contains("route=\"/readyz\"")
                    }
                    .map(String.init).sorted()
                return (answers, metrics, answeredDirectly)
            }
        }
    }

    /// With small files in memory (16 MiB) and with every file read from disk (0); and without
    /// the access log, when the direct path writes a file region whole instead of in pieces it
    /// counts. The rows include those of the suites that test these answers in process (ranges,
    /// path safety, methods): the direct path must give the same.
    @Test(
        "every answer is the same, field for field and byte for byte, with and without the direct path",
        arguments: [(16 << 20, true), (0, true), (0, false)]
    )
    func sameAnswers(memoryCacheBytes: Int, logsRequests: Bool) async throws {
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
            // Stored files: whole, one range, a suffix, the gzip variant, HEAD, If-Range.
            ("GET", "/noise.bin", []),
            ("HEAD", "/noise.bin", []),
            ("GET", "/noise.bin", [("Range", "bytes=1000-66535")]),
            ("GET", "/noise.bin", [("Range", "bytes=-10")]),
            ("HEAD", "/noise.bin", [("Range", "bytes=0-0")]),
            ("GET", "/noise.bin", [("Range", "bytes=99990-"), ("If-Range", "CURRENT")]),
            ("GET", "/noise.bin", [("Range", "bytes=0-9"), ("If-Range", "\"old\"")]),
            ("GET", "/noise.bin", [("Range", "bytes=100000-")]),
            ("GET", "/text.txt", []),
            ("GET", "/text.txt", [("Accept-Encoding", "gzip"), ("Range", "bytes=10-99")]),
            ("GET", "/files/db/catalog.sqlite", [("Accept-Encoding", "gzip")]),
            ("GET", "/files/db/catalog.sqlite", [("Range", "bytes=5-5")]),
            // RangeRequestTests' rows: single ranges, unsatisfiable, ignored, coalesced (several parts
            // are Hummingbird's, with a boundary of their own each time).
            ("GET", "/noise.bin", [("Range", "bytes=0-499")]),
            ("GET", "/noise.bin", [("Range", "bytes=99000-2000000")]),
            ("GET", "/noise.bin", [("Range", "BYTES=5-5")]),
            ("GET", "/noise.bin", [("Range", "bytes=-200000")]),
            ("GET", "/noise.bin", [("Range", "bytes=-0")]),
            ("GET", "/noise.bin", [("Range", "bytes=100000-100001,-0")]),
            ("GET", "/noise.bin", [("Range", "bytes=5-1")]),
            ("GET", "/noise.bin", [("Range", "items=0-1")]),
            ("GET", "/noise.bin", [("Range", "bytes=100-199,150-299,300-399")]),
            ("GET", "/noise.bin", [("Range", "bytes=0-9"), ("If-Range", "Tue, 14 Nov 2023 22:13:20 GMT")]),
            ("GET", "/noise.bin", [("Range", "bytes=0-9"), ("If-Range", "Tue, 14 Nov 2023 22:13:21 GMT")]),
            // PathSafetyTests' and FileServingTests' rows: escapes, odd names, methods.
            ("GET", "/%2e%2e/text.txt", []),
            ("GET", "/./text.txt", []),
            ("GET", "//text.txt", []),
            ("GET", "/text.txt%00", []),
            ("GET", "/text.txt/x", []),
            ("DELETE", "/text.txt", []),
        ]
        let direct = try await Self.answers(direct: true, memoryCacheBytes: memoryCacheBytes, logsRequests: logsRequests, requests: requests)
        let hummingbird = try await Self.answers(direct: false, memoryCacheBytes: memoryCacheBytes, logsRequests: logsRequests, requests: requests)
        #expect(direct.answers.count == requests.count)
        for (mine, theirs) in zip(direct.answers, hummingbird.answers) {
            #expect(mine == theirs)
        }
        #expect(direct.metrics == hummingbird.metrics)
        #expect(direct.metrics.contains { $0.contains("route=\"/files/**\"") } && direct.metrics.contains { $0.contains("route=\"public\"") })
        // Not vacuous: the direct path answered most of them (the rest: refusals, multipart,
        // 404s, and published files not yet cached), the other server none.
        #expect(direct.answeredDirectly >= 18)
        #expect(hummingbird.answeredDirectly == 0)
    }

    @Test("pipelined requests keep their order across both paths")
    func pipelinedOrder() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                // 304 (direct), two ranges (Hummingbird), 304 (waits for the 206), 404, 304.
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                try await connection.send("GET", "/noise.bin", headers: [("Range", "bytes=0-0,2-2")])
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                try await connection.send("GET", "/missing")
                try await connection.send("GET", "/text.txt", headers: [("If-None-Match", etag)])
                #expect(try await connection.readResponse().status == 304)
                let noise = try await connection.readResponse()
                #expect(noise.status == 206 && noise.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
                #expect(try await connection.readResponse().status == 304)
                #expect(try await connection.readResponse().status == 404)
                #expect(try await connection.readResponse().status == 304)
            }
        }
    }

    @Test("HTTP/1.0 and Connection: close are left to Hummingbird, which answers them, says close and closes (RFC 9112 §9.3)")
    func leftToHummingbird() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                // A request pipelined after the HTTP/1.0 one is never answered: the connection
                // ends with the HTTP/1.0 answer, which a client reading to the end waits for.
                try await connection.sendRaw(
                    Array("GET /text.txt HTTP/1.0\r\nIf-None-Match: \(etag)\r\n\r\nGET /text.txt HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
                )
                let answer = try await connection.readResponse()
                #expect(answer.status == 304)
                #expect(answer.header("Connection") == "close")
                #expect(try await connection.isClosedByServer())
            }
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.sendRaw(Array("GET /text.txt HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8))
                let kept = try await connection.readResponse()
                #expect(kept.status == 200 && kept.header("Connection") != "close")
                #expect(try await connection.request("HEAD", "/text.txt").status == 200)
            }
            try await RawHTTPConnection.with(port: server.port) { connection in
                let etag = try #require(try await connection.request("HEAD", "/text.txt").header("ETag"))
                let closing = try await connection.request("GET", "/text.txt", headers: [("If-None-Match", etag), ("Connection", "close")])
                #expect(closing.status == 304)
            }
        }
    }

    /// A file answer is corked (`TCP_CORK`) so its head shares a segment with its first bytes.
    /// Left corked, the kernel would hold each answer's last partial segment for 200 ms.
    @Test("a file sent with sendfile(2) is not held back: the cork is released after every answer")
    func corkReleased() async throws {
        try await LiveServer.with(configuration: .init(memoryCacheBytes: 0), prepare: Fixture.standardFolder) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                for round in 1...10 {
                    let response = try await connection.request("GET", "/text.txt")
                    // Not vacuous: this answer was corked.
                    #expect(server.requests.corkedAnswers == round)
                    #expect(response.status == 200 && Data(response.body) == Fixture.text)
                    // The server's end of this connection (the server runs in this process).
                    let corks = Self.corkedConnections(toPort: server.port)
                    #expect(!corks.isEmpty && !corks.contains(true))
                }
            }
        }
    }

    /// For each accepted connection to `port` among this process's sockets, whether `TCP_CORK`
    /// is set on it.
    ///
    /// Socket addresses are read as bytes (family in host order, then the port in network
    /// order): which Clang module owns `sockaddr_in` differs from build to build, and Swift
    /// refuses its fields in some (MemberImportVisibility).
    static func corkedConnections(toPort port: Int) -> [Bool] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        func address(_ descriptor: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: 128)
            var length = socklen_t(bytes.count)
            let result = bytes.withUnsafeMutableBytes { call(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
            return result == 0 ? bytes : nil
        }
        return descriptors.compactMap(Int32.init).compactMap { descriptor in
            guard let local = address(descriptor, getsockname),
                UInt16(local[0]) | UInt16(local[1]) << 8 == UInt16(AF_INET),
                Int(local[2]) << 8 | Int(local[3]) == port
            else { return nil }
            // The listening socket has no peer.
            guard address(descriptor, getpeername) != nil else { return nil }
            var corked: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &corked, &size) == 0 else { return nil }
            return corked != 0
        }
    }

    @Test("a client that sends requests without reading the answers makes the server hold no queue of open files")
    func requestsWithoutReading() async throws {
        let prepare: @Sendable (URL) throws -> Void = { folder in try folder.write(Data(count: 16 << 20), to: "zeros.bin") }
        // Every answer opens the file for itself, so a queue of answers would show as open files.
        try await LiveServer.with(configuration: ServerConfiguration(openFilesPerEventLoop: 0), prepare: prepare) { server in
            // The served files only: the catalog's pool opens a reader (the database and its WAL)
            // whenever two reads meet, and keeps it, which a loaded machine makes likely.
            let folders = [server.publicDirectory, server.dataDirectory.appendingPathComponent("blobs")]
            let pathsBefore = Self.openFilePaths(under: folders)
            let before = pathsBefore.count
            try await RawHTTPConnection.with(port: server.port) { connection in
                // 400 requests in one write, each for 16 MiB: the first fills the socket.
                let request = Array("GET /zeros.bin HTTP/1.1\r\nHost: depot\r\n\r\n".utf8)
                try await connection.sendRaw(Array(repeating: request, count: 400).flatMap { $0 })
                // The file being sent is open (so the count sees the server's files), and no more.
                // Waited for, not slept on: the bound only guards a hang.
                // Hang guard: slowest seen 1.1 s under two busy loops (the whole test); 60 s once expired during a cold CI build, so ten minutes.
                let during = try await poll(every: .milliseconds(20), for: .seconds(600)) { () -> Int? in
                    let open = Self.openFiles(under: folders)
                    return open > before ? open : nil
                }
                #expect(during.map { $0 < before + 10 } == true, "\(String(describing: during)) open files, \(before) before")
                // And the answers all come, in full, once read.
                for _ in 0..<3 {
                    let response = try await connection.readResponse()
                    #expect(response.status == 200 && response.body.count == 16 << 20)
                }
                // 397 answers still wait: none of them holds a file open.
                #expect(Self.openFiles(under: folders) < before + 10)
            }
            // The connection is gone: every file is closed again, once the server has seen it go.
            // Hang guard: slowest seen 1.1 s under two busy loops (the whole test); 60 s once expired during a cold CI build, so ten minutes.
            let closed = try await poll(every: .milliseconds(20), for: .seconds(600)) { Self.openFiles(under: folders) <= before ? true : nil }
            let open = Self.openFilePaths(under: folders)
            #expect(closed == true, "\(open.count) files open, \(before) before: \(open), before: \(pathsBefore)")
        }
    }

    @Test("ranges of a stored file share one open file per event loop, closed when the server stops")
    func openFilesShared() async throws {
        let content = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let prepare: @Sendable (URL) throws -> Void = { folder in try folder.write(content, to: "large.bin") }
        let folders = try await LiveServer.with(prepare: prepare) { server in
            // The stored files only: the catalog is open too.
            let folders = [server.dataDirectory.appendingPathComponent("blobs")]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for connectionIndex in 0..<4 {
                    group.addTask {
                        try await RawHTTPConnection.with(port: server.port) { connection in
                            for index in 0..<20 {
                                let start = (connectionIndex * 20 + index) * 9_973
                                let range = ("Range", "bytes=\(start)-\(start + 4_095)")
                                let response = try await connection.request("GET", "/large.bin", headers: [range])
                                #expect(response.status == 206 && response.body == Array(content[start..<(start + 4_096)]))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // The 80 answers kept the file open: once for each event loop that sent it, at most.
            let open = Self.openFiles(under: folders)
            #expect((1...min(4, System.coreCount)).contains(open))
            return folders
        }
        // Graceful shutdown closed it.
        #expect(Self.openFiles(under: folders) == 0)
    }

    @Test("a kept file no answer uses is closed after the idle time, while the server runs")
    func openFilesClosedWhenIdle() async throws {
        let prepare: @Sendable (URL) throws -> Void = { folder in try folder.write(Data(count: 1 << 20), to: "zeros.bin") }
        let configuration = ServerConfiguration(openFileIdleTime: .seconds(1))
        try await LiveServer.with(configuration: configuration, prepare: prepare) { server in
            let folders = [server.dataDirectory.appendingPathComponent("blobs")]
            try await RawHTTPConnection.with(port: server.port) { connection in
                let response = try await connection.request("GET", "/zeros.bin", headers: [("Range", "bytes=0-99")])
                #expect(response.status == 206 && response.body.count == 100)
                #expect(Self.openFiles(under: folders) == 1)
                // Closed within two sweeps; a loaded machine may take longer.
                var open = 1
                // Hang guard: slowest seen 2.2 s under two busy loops (the whole test).
                for _ in 0..<1_200 where open > 0 {
                    try await Task.sleep(for: .milliseconds(100))
                    open = Self.openFiles(under: folders)
                }
                #expect(open == 0)
            }
        }
    }

    /// The number of files under `folders` this process has open (the server runs in it). Only
    /// the server's own folders count: other tests run in the same process at the same time.
    static func openFiles(under folders: [URL]) -> Int {
        openFilePaths(under: folders).count
    }

    /// The paths of the files under `folders` this process has open, one for each descriptor
    /// (a file open twice is listed twice), sorted: a failure says which files stay open.
    static func openFilePaths(under folders: [URL]) -> [String] {
        let prefixes = folders.map { $0.resolvingSymlinksInPath().path + "/" }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { descriptor -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                prefixes.contains(where: { target.hasPrefix($0) })
            else { return nil }
            return target
        }
        .sorted()
    }
}
