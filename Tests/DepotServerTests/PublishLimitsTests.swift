import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Uploads that must leave nothing behind: too large, cut off, or refused by a full disk.
@Suite("Publishing limits and failures")
struct PublishLimitsTests {
    static let auth = PublishToken.authorization

    /// The files in `tmp/` and its subfolders (where batches write).
    static func temporaryFiles(in dataDirectory: URL) throws -> [String] {
        try Fixture.files(below: dataDirectory.appendingPathComponent("tmp"))
    }

    @Test("a declared length over the limit is 413 at once, and the connection is closed")
    func declaredTooLarge() async throws {
        try await LiveServer.withPublishing(configuration: .init(publish: .init(maxUploadBytes: 1000))) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                // Ten gigabytes announced, none sent: the answer cannot wait for the body.
                try await connection.send("PUT", "/v1/files/big.bin", headers: [Self.auth, ("Content-Length", "10000000000")])
                let response = try await connection.readResponse()
                #expect(response.status == 413)
                #expect(response.bodyText.contains("limit of 1000 bytes"))
                #expect(try await connection.isClosedByServer())
            }
            #expect(try Self.temporaryFiles(in: server.dataDirectory).isEmpty)
        }
    }

    @Test("POST /v1/blobs/missing asks about at most publish.maxMissingHashes hashes: more is 413, at the limit is answered")
    func missingHashesLimit() async throws {
        try await InProcessConnection.withPublishing(configuration: .init(publish: .init(maxMissingHashes: 3))) { connection in
            func ask(_ count: Int) async throws -> RawHTTPResponse {
                let hashes = (0..<count).map { "\"\(String(repeating: String($0 % 10), count: 64))\"" }.joined(separator: ",")
                return try await connection.request(
                    "POST",
                    "/v1/blobs/missing",
                    headers: [Self.auth],
                    body: Array("{\"sha256\": [\(hashes)]}".utf8)
                )
            }
            let over = try await ask(4)
            #expect(over.status == 413)
            #expect(over.bodyText.contains("at most 3 hashes"))
            let at = try await ask(3)
            #expect(at.status == 200)
            #expect(try at.decoded(MissingBlobsReply.self).missing.count == 3)
        }
    }

    @Test("a chunked body that crosses the limit is 413, stored nowhere, and the connection is closed")
    func streamedTooLarge() async throws {
        try await LiveServer.withPublishing(configuration: .init(publish: .init(maxUploadBytes: 1000))) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/big.bin", headers: [Self.auth, ("Transfer-Encoding", "chunked")])
                try await connection.sendRaw(Array("800\r\n".utf8) + [UInt8](repeating: 65, count: 0x800) + Array("\r\n".utf8))
                let response = try await connection.readResponse()
                #expect(response.status == 413)
                #expect(try await connection.isClosedByServer())
            }
            let published = try await RawHTTPConnection.with(port: server.port) {
                PublishingTests.entries(try await PublishingTests.manifest(&$0)).count
            }
            #expect(published == 0)
            #expect(try Self.temporaryFiles(in: server.dataDirectory).isEmpty)
        }
    }

    @Test("a client that disconnects mid-upload publishes nothing and leaves no temporary file")
    func disconnect() async throws {
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("PUT", "/v1/files/cut.bin", headers: [Self.auth, ("Content-Length", "1000000")])
                try await connection.sendRaw([UInt8](repeating: 1, count: 300_000))
                // Not vacuous: the upload is being stored when the client goes.
                var started = try Self.temporaryFiles(in: server.dataDirectory)
                // Hang guard: slowest seen 0.3 s under two busy loops (the whole test).
                for _ in 0..<6_000 where started.isEmpty {
                    try await Task.sleep(for: .milliseconds(20))
                    started = try Self.temporaryFiles(in: server.dataDirectory)
                }
                #expect(!started.isEmpty, "the upload never reached the store")
            }
            // The server notices the closed connection and discards the partial upload.
            var leftovers = try Self.temporaryFiles(in: server.dataDirectory)
            for _ in 0..<2_400 where !leftovers.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                leftovers = try Self.temporaryFiles(in: server.dataDirectory)
            }
            #expect(leftovers.isEmpty)
            let (published, status) = try await RawHTTPConnection.with(port: server.port) { connection in
                (
                    PublishingTests.entries(try await PublishingTests.manifest(&connection)).count,
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
                    headers: [Self.auth, ("Content-Length", "\(content.count)")]
                )
                try await connection.sendRaw(Array(content.prefix(1 << 20)))
                var started = try Self.temporaryFiles(in: server.dataDirectory)
                // Hang guard: slowest seen 1.3 s under two busy loops (the whole test).
                for _ in 0..<6_000 where !started.contains(where: { $0.hasSuffix(".zblocks") }) {
                    try await Task.sleep(for: .milliseconds(20))
                    started = try Self.temporaryFiles(in: server.dataDirectory)
                }
                #expect(started.contains { $0.hasSuffix(".zblocks") }, "the index was not made as the upload arrived: \(started)")
            }
            var leftovers = try Self.temporaryFiles(in: server.dataDirectory)
            for _ in 0..<2_400 where !leftovers.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                leftovers = try Self.temporaryFiles(in: server.dataDirectory)
            }
            #expect(leftovers.isEmpty)
            let stored = try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.request("PUT", "/v1/blobs/\(sha256)", headers: [Self.auth], body: Array(content))
            }
            #expect(stored.status == 201)
            #expect(try Self.temporaryFiles(in: server.dataDirectory).isEmpty)
            // Its index was recorded: served once a release lists the blob.
            let (committed, blocks) = try await RawHTTPConnection.with(port: server.port) { connection in
                let commit = #"{"files": [{"path": "big.bin", "sha256": "\#(sha256)"}]}"#
                return (
                    try await connection.request(
                        "POST",
                        "/v1/releases",
                        headers: [Self.auth, ("Content-Type", "application/json")],
                        body: Array(commit.utf8)
                    ).status,
                    try await connection.request("GET", "/blobs/\(sha256).blocks").status
                )
            }
            #expect(committed == 201 && blocks == 200)
        }
    }

    @Test("a full disk is 507, the previous version stays live, and nothing half-written remains", .enabled(if: getuid() == 0))
    func diskFull() async throws {
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            // A real file system of 2 MiB as the data folder (needs root to mount).
            let mount = try await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", data.path])
            try #require(mount.status == 0)
            // Unmounted however the test ends (lazily: a descriptor may still be open).
            func unmount() async throws { _ = try await ChildProcess.run("/bin/umount", ["-l", data.path]) }
            do {
                var configuration = ServerConfiguration()
                configuration.publish.tokens = [LiveServer.token]
                configuration.dataDirectory = data.path
                let small = Data("small and fine\n".utf8)
                let large = Fixture.pseudoRandom(count: 3 << 20, seed: 9)
                try await LiveServer.withDataDirectory(data, configuration: configuration) { server in
                    try await RawHTTPConnection.with(port: server.port) { connection in
                        #expect(try await connection.publish("f.bin", small).status == 201)
                        let full = try await connection.publish("f.bin", large)
                        #expect(full.status == 507)
                        #expect(full.bodyText.contains("no space"))
                        #expect(Data(try await connection.request("GET", "/files/f.bin").body) == small)
                    }
                    #expect(try Self.temporaryFiles(in: server.dataDirectory).isEmpty)
                }
            } catch {
                try await unmount()
                throw error
            }
            try await unmount()
        }
    }
}

/// Collection running without pause while releases are published: what a publish made before
/// its commit is still there after it (it was not: a collection between a publish's block index
/// and its commit deleted the index, and the release went live without it).
@Suite("Collection during publishes")
struct CollectionDuringPublishTests {
    @Test("under collection every 5 ms, each release of a large blob serves its block index and its patch")
    func indexSurvivesCollection() async throws {
        var configuration = ServerConfiguration()
        configuration.publish.collectionInterval = .milliseconds(5)
        configuration.publish.retiredGracePeriod = .zero
        // A lost patch is not made again on request: the test sees it lost.
        configuration.publish.deltas.onRequest = false
        try await LiveServer.withPublishing(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                var previous: String?
                for round in 0..<6 {
                    // Mostly the same bytes each round: a patch from the previous version pays.
                    var content = Fixture.pseudoRandom(count: 2 << 20, seed: 11)
                    content.replaceSubrange(0..<8, with: Fixture.pseudoRandom(count: 8, seed: UInt64(101 + 2 * round)))
                    let sha256 = Fixture.sha256(content)
                    let put = try await connection.request("PUT", "/v1/blobs/\(sha256)", headers: [PublishLimitsTests.auth], body: Array(content))
                    #expect(put.status == 201)
                    let commit = #"{"files": [{"path": "big.bin", "sha256": "\#(sha256)"}]}"#
                    let committed = try await connection.request(
                        "POST",
                        "/v1/releases",
                        headers: [PublishLimitsTests.auth, ("Content-Type", "application/json")],
                        body: Array(commit.utf8)
                    )
                    #expect(committed.status == 201)
                    #expect(try await connection.request("GET", "/blobs/\(sha256).blocks").status == 200, "round \(round)")
                    if let previous {
                        #expect(try await connection.request("GET", "/deltas/\(previous)/\(sha256)").status == 200, "round \(round)")
                    }
                    previous = sha256
                }
            }
        }
    }
}
