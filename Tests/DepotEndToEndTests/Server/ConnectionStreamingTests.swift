import DepotHTTP
import DepotServer
import DepotTestFixtures
import DepotTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// What the connection adds to an answer and how it streams it, over real sockets: the fields
/// it writes (`Date`; a 304 with no `Content-Length`), its framing (a 226 of unknown length is
/// chunked), bodies sent under backpressure while their content changes, and clients that stop
/// reading, hang up mid-upload or leave while their answer is being made. What the answers say
/// is tested in process (FileServing, Conditional requests, Publishing, Page packs); the direct
/// path's sameness, by DirectResponderTests.
@Suite("Answers and uploads over a connection")
struct ConnectionStreamingTests {
    @Test("304 carries ETag, Last-Modified, Vary and Cache-Control, and no content (§15.4.5); a 200 and a 304 carry Date")
    func notModifiedFields() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                // FileServingTests.getIdentity's answer, in process but for the Date the connection writes.
                #expect(try await connection.request("GET", "/text.txt").header("Date") != nil)
                let response = try await connection.request("GET", "/text.txt", headers: [("If-None-Match", Fixture.standardETag)])
                #expect(response.status == 304)
                #expect(response.header("ETag") == Fixture.standardETag)
                #expect(response.header("Last-Modified") == Fixture.standardLastModified)
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.header("Cache-Control") == "no-cache")
                #expect(response.header("Date") != nil)
                #expect(response.header("Content-Type") == nil)
                #expect(response.header("Content-Length") == nil)
                #expect(response.header("Transfer-Encoding") == nil)
                // Nothing followed the header block: the next response parses cleanly.
                let next = try await connection.request("GET", "/index.html")
                #expect(next.status == 200)
            }
        }
    }

    static let large = Fixture.pseudoRandom(count: 24 << 20, seed: 7)

    static func folderWithLargeFile(_ folder: URL) throws {
        try folder.write(large, to: "large.bin")
    }

    @Test("a 226 of RFC 3229 delta encoding, its length unknown up front, is sent chunked")
    func deltaEncodingIsChunked() async throws {
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                #expect(try await connection.publish("catalog.txt", Fixture.catalogVersion(1)).status == 201)
                #expect(try await connection.publish("catalog.txt", Fixture.catalogEdited).status == 201)
                _ = try await connection.patchedEntry("catalog.txt")
                let old = "\"\(Fixture.sha256(Fixture.catalogVersion(1)))\""
                let delta = try await connection.request("GET", "/files/catalog.txt", headers: [("A-IM", "vcdiff"), ("If-None-Match", old)])
                #expect(delta.status == 226)
                #expect(delta.header("Transfer-Encoding") == "chunked")
                #expect(delta.header("Content-Length") == nil)
            }
        }
    }

    @Test("a large file streams whole and exact")
    func largeFile() async throws {
        let large = Self.large
        try await LiveServer.with(prepare: Self.folderWithLargeFile) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let response = try await connection.request("GET", "/large.bin")
                #expect(response.status == 200)
                #expect(response.body.count == large.count)
                #expect(Fixture.sha256(response.body) == Fixture.sha256(large))
            }
        }
    }

    @Test("Last-Modified is never later than Date, published and requested in a tight loop, on both serving paths", arguments: [true, false])
    func lastModifiedNotAfterDate(direct: Bool) async throws {
        var configuration = ServerConfiguration()
        configuration.directResponses = direct
        configuration.publish.keepVersions = 1
        try await LiveServer.withPublishing(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                // Until the publishes have spanned three seconds (the window where a stale Date
                // shows), however long that takes: about three seconds here, but a publish under
                // a full parallel run of the suites on two cores has taken 4–40 s (its fsyncs
                // wait for the other tests' writes). The count bounds only a server whose dates
                // never move.
                var checked = 0
                var seconds = Set<Int64>()
                while seconds.count < 4, checked < 10_000 {
                    let body = Array("version \(checked)".utf8)
                    let put = try await connection.request(
                        "PUT",
                        "/v1/files/t.txt",
                        headers: [("Authorization", "Bearer \(LiveServer.token)")],
                        body: body
                    )
                    #expect(put.status == 201)
                    for method in ["GET", "HEAD"] {
                        let response = try await connection.request(method, "/files/t.txt")
                        let now = HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970))
                        let date = try #require(response.header("Date").flatMap { HTTPDate(parsing: $0, now: now) })
                        let modified = try #require(response.header("Last-Modified").flatMap { HTTPDate(parsing: $0, now: now) })
                        seconds.insert(modified.secondsSince1970)
                        #expect(modified <= date, "\(method) #\(checked): Last-Modified \(modified.imfFixdate) after Date \(date.imfFixdate)")
                    }
                    checked += 1
                }
                #expect(seconds.count >= 4)
            }
        }
    }

    @Test("a download under way finishes whole while collection deletes its blob")
    func downloadSurvivesCollection() async throws {
        let configuration = ServerConfiguration(
            publish: .init(keepVersions: 1, keepReleases: 1, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
        )
        let old = Fixture.pseudoRandom(count: 48 << 20, seed: 11)
        let oldHash = Fixture.sha256(old)
        try await LiveServer.withPublishing(configuration: configuration) { server in
            let first = try await RawHTTPConnection.with(port: server.port) { try await $0.publish("big.bin", old).status }
            #expect(first == 201)
            try await RawHTTPConnection.with(port: server.port) { download in
                // The response starts; the client then stops reading, so the server is stuck in
                // the middle of the file by backpressure.
                try await download.send("GET", "/blobs/\(oldHash)")
                let second = try await RawHTTPConnection.with(port: server.port) {
                    try await $0.publish("big.bin", Data("replacement\n".utf8)).status
                }
                #expect(second == 201)
                var files = Fixture.blobFiles(server.dataDirectory)
                // Hang guard: slowest seen 12.9 s under two busy loops (the whole test).
                for _ in 0..<2_400 where files.contains(oldHash) {
                    try await Task.sleep(for: .milliseconds(50))
                    files = Fixture.blobFiles(server.dataDirectory)
                }
                #expect(!files.contains(oldHash), "the retired blob was collected during the download")
                let response = try await download.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == old.count)
                #expect(Fixture.sha256(response.body) == oldHash)
            }
        }
    }

    @Test("20 readers downloading while the path is republished each get one whole, hash-correct version")
    func readersDuringRepublish() async throws {
        let versions = (0..<4).map { Fixture.pseudoRandom(count: 2 << 20, seed: UInt64(2 * $0 + 101)) }
        let hashes = Set(versions.map(Fixture.sha256))
        try await LiveServer.withPublishing { server in
            let first = try await RawHTTPConnection.with(port: server.port) { try await $0.publish("db.bin", versions[0]).status }
            #expect(first == 201)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await RawHTTPConnection.with(port: server.port) { connection in
                        for version in versions.dropFirst() {
                            let reply = try await connection.publish("db.bin", version)
                            #expect(reply.status == 201)
                        }
                    }
                }
                for _ in 0..<20 {
                    group.addTask {
                        try await RawHTTPConnection.with(port: server.port) { connection in
                            for _ in 0..<3 {
                                let response = try await connection.request("GET", "/files/db.bin")
                                #expect(response.status == 200)
                                let digest = Fixture.sha256(response.body)
                                #expect(hashes.contains(digest), "a download mixed versions")
                                #expect(response.header("ETag") == "\"\(digest)\"", "the ETag names the bytes sent")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("a client that disconnects mid-upload publishes nothing and leaves no temporary file")
    func disconnect() async throws {
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/cut.bin", headers: [PublishToken.authorization, ("Content-Length", "1000000")])
                try await connection.sendRaw([UInt8](repeating: 1, count: 300_000))
                // Not vacuous: the upload is being stored when the client goes.
                var started = try Fixture.temporaryFiles(in: server.dataDirectory)
                // Hang guard: slowest seen 0.3 s under two busy loops (the whole test).
                for _ in 0..<6_000 where started.isEmpty {
                    try await Task.sleep(for: .milliseconds(20))
                    started = try Fixture.temporaryFiles(in: server.dataDirectory)
                }
                #expect(!started.isEmpty, "the upload never reached the store")
            }
            // The server notices the closed connection and discards the partial upload.
            var leftovers = try Fixture.temporaryFiles(in: server.dataDirectory)
            for _ in 0..<2_400 where !leftovers.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                leftovers = try Fixture.temporaryFiles(in: server.dataDirectory)
            }
            #expect(leftovers.isEmpty)
            let (published, status) = try await RawHTTPConnection.with(port: server.port) { connection in
                (
                    ClientManifest.entries(try await ClientManifest.read(&connection)).count,
                    try await connection.request("GET", "/files/cut.bin").status
                )
            }
            #expect(published == 0)
            #expect(status == 404)
        }
    }

    @Test("a blob large enough for a block index, indexed as it arrives, leaves no temporary file: stored, or cut off mid-body")
    func indexedUploadLeavesNothing() async throws {
        let content = Fixture.pseudoRandom(count: 2 << 20, seed: 7)
        let sha256 = Fixture.sha256(content)
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send(
                    "PUT",
                    "/v1/blobs/\(sha256)",
                    headers: [PublishToken.authorization, ("Content-Length", "\(content.count)")]
                )
                try await connection.sendRaw(Array(content.prefix(1 << 20)))
                var started = try Fixture.temporaryFiles(in: server.dataDirectory)
                // Hang guard: slowest seen 1.3 s under two busy loops (the whole test).
                for _ in 0..<6_000 where !started.contains(where: { $0.hasSuffix(".zblocks") }) {
                    try await Task.sleep(for: .milliseconds(20))
                    started = try Fixture.temporaryFiles(in: server.dataDirectory)
                }
                #expect(started.contains { $0.hasSuffix(".zblocks") }, "the index was not made as the upload arrived: \(started)")
            }
            var leftovers = try Fixture.temporaryFiles(in: server.dataDirectory)
            for _ in 0..<2_400 where !leftovers.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                leftovers = try Fixture.temporaryFiles(in: server.dataDirectory)
            }
            #expect(leftovers.isEmpty)
            let stored = try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.request("PUT", "/v1/blobs/\(sha256)", headers: [PublishToken.authorization], body: Array(content))
            }
            #expect(stored.status == 201)
            #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
            // Its index was recorded: served once a release lists the blob.
            let (committed, blocks) = try await RawHTTPConnection.with(port: server.port) { connection in
                let commit = #"{"files": [{"path": "big.bin", "sha256": "\#(sha256)"}]}"#
                return (
                    try await connection.request(
                        "POST",
                        "/v1/releases",
                        headers: [PublishToken.authorization, ("Content-Type", "application/json")],
                        body: Array(commit.utf8)
                    ).status,
                    try await connection.request("GET", "/blobs/\(sha256).blocks").status
                )
            }
            #expect(committed == 201 && blocks == 200)
        }
    }

    @Test("requests abandoned while their pack is being made: the pack is made once and kept, the next request makes none")
    func abandoned() async throws {
        let entered = Atomic(0)
        let gate = DispatchSemaphore(value: 0)
        var configuration = ServerConfiguration(memoryCacheBytes: 0)
        configuration.packs = ComputeLimits(maximumConcurrent: 1, maximumQueued: 1)
        configuration.packs.whileComputing = {
            entered.add(1, ordering: .relaxed)
            gate.wait()
        }
        try await LiveServer.withPublishing(configuration: configuration) { server in
            defer { for _ in 0..<8 { gate.signal() } }
            let (pages, path, _) = try await PagePacks.publish(server, count: 200)
            try #require(pages.count >= 3)
            // Three clients ask for the first page's pack and hang up while it is being made.
            for _ in 0..<3 {
                try await RawHTTPConnection.with(port: server.port) { try await $0.send("GET", "/packs/\(pages[0]).br") }
            }
            // Hang guard: slowest seen 19.6 s under two busy loops (the whole test).
            let held = try await poll(every: .milliseconds(5), for: .seconds(120)) { entered.load(ordering: .relaxed) >= 1 ? true : nil }
            try #require(held == true, "the pack is being made")
            // The second and third pages race for the queue's one place: one waits, the other is
            // refused at once. (Which is which is the server's to say: sending one first does not
            // make it arrive first.) Files are served meanwhile; then the gate opens.
            let queued = try await withThrowingTaskGroup(of: (page: String, answer: RawHTTPResponse).self) { group in
                for page in pages[1...2] {
                    group.addTask { (page, try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/packs/\(page).br") }) }
                }
                let busy = try #require(try await group.next())
                #expect(busy.answer.status == 503 && busy.answer.header("Retry-After") != nil && busy.answer.body.count < 256)
                let file = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/files/\(path)") }
                #expect(file.status == 200)
                gate.signal()
                gate.signal()
                let waited = try #require(try await group.next())
                #expect(waited.answer.status == 200)
                return waited.page
            }
            let kept = try await RawHTTPConnection.with(port: server.port) {
                try await $0.waitForMetric(PagePacks.brMade, toReach: 2)
            }
            #expect(kept, "both packs were made and kept")
            for page in [pages[0], queued] {
                let answer = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/packs/\(page).br") }
                #expect(answer.status == 200)
            }
            let made = try await PagePacks.made(server)
            #expect(made.br == 2 && entered.load(ordering: .relaxed) == 2, "made \(made), computations \(entered.load(ordering: .relaxed))")
        }
    }

    @Test(
        "a server stopped while packs are computing and queued (their clients gone) stops cleanly, and keeps the one made"
    )
    func stopWhileQueued() async throws {
        let entered = Atomic(0)
        let gate = DispatchSemaphore(value: 0)
        var configuration = ServerConfiguration(memoryCacheBytes: 0)
        configuration.publish.tokens = [LiveServer.token]
        configuration.packs = ComputeLimits(maximumConcurrent: 1, maximumQueued: 4)
        configuration.packs.whileComputing = {
            entered.add(1, ordering: .relaxed)
            // Held until the server is stopping (a bound, not a deadline: the stop signals it).
            // Hang guard: slowest seen 22.3 s under two busy loops (the whole test).
            _ = gate.wait(timeout: .now() + 120)
        }
        try await withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("data")
            let pages = try await LiveServer.withDataDirectory(data, configuration: configuration) { server in
                let pages = try await PagePacks.publish(server, count: 200).pages
                try #require(pages.count >= 4)
                for page in pages.prefix(4) {
                    try await RawHTTPConnection.with(port: server.port) { try await $0.send("GET", "/packs/\(page).br") }
                }
                // Hang guard: slowest seen 22.3 s under two busy loops (the whole test).
                let held = try await poll(every: .milliseconds(5), for: .seconds(120)) { entered.load(ordering: .relaxed) >= 1 ? true : nil }
                try #require(held == true, "a pack is being made")
                // Let the computation under way end once the stop has begun.
                Task { [gate] in
                    try await Task.sleep(for: .milliseconds(200))
                    gate.signal()
                }
                return pages
            }
            #expect(entered.load(ordering: .relaxed) == 1, "only the pack under way was made; the queued ones were dropped at the stop")
            // Started again: the pack made during the stop was kept; the others are made now.
            configuration.packs = ComputeLimits(maximumConcurrent: 1, maximumQueued: 4)
            try await LiveServer.withDataDirectory(data, configuration: configuration) { server in
                for page in pages.prefix(4) {
                    let answer = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/packs/\(page).br") }
                    #expect(answer.status == 200)
                }
                let made = try await PagePacks.made(server)
                #expect(made.br == 3, "made \(made) after the restart")
            }
        }
    }
}
