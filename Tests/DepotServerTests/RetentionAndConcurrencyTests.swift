import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Retention, collection of unreferenced blobs, and publishes racing with readers and each other.
@Suite("Retention and concurrency")
struct RetentionAndConcurrencyTests {
    static let auth = PublishingTests.auth

    static func blobFiles(_ server: LiveServer) -> Set<String> {
        let files = (try? Fixture.files(below: server.dataDirectory.appendingPathComponent("blobs"))) ?? []
        return Set(files.map { String($0.split(separator: "/").last!) })
    }

    @Test("the last K versions are kept; older blobs are collected once the grace period has passed")
    func retention() async throws {
        let configuration = ServerConfiguration(
            publish: .init(keepVersions: 2, keepReleases: 2, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
        )
        let versions = (1...3).map { Data("version \($0)\n".utf8) + Fixture.text }
        let hashes = versions.map(Fixture.sha256)
        try await LiveServer.withPublishing(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                for version in versions {
                    #expect(try await PublishingTests.publish(&connection, "r.txt", version).status == 201)
                }
                // Version 1 is retired: after the (zero) grace period its blob and gzip variant go.
                // However slowly a loaded machine runs the collections: the bound only guards a hang.
                var files = Self.blobFiles(server)
                for _ in 0..<12_000 where files.contains(hashes[0]) || files.contains(hashes[0] + ".gz") {
                    try await Task.sleep(for: .milliseconds(50))
                    files = Self.blobFiles(server)
                }
                #expect(!files.contains(hashes[0]))
                #expect(!files.contains(hashes[0] + ".gz"))
                #expect(files.isSuperset(of: [hashes[1], hashes[2], hashes[2] + ".gz"]))
                #expect(try await connection.request("GET", "/blobs/\(hashes[0])").status == 404)
                let retained = try await connection.request("GET", "/blobs/\(hashes[1])")
                #expect(Data(retained.body) == versions[1])
                let live = try await connection.request("GET", "/files/r.txt")
                #expect(Data(live.body) == versions[2])
            }
        }
    }

    @Test("a retired version stays downloadable during the grace period")
    func gracePeriod() async throws {
        let configuration = ServerConfiguration(
            publish: .init(keepVersions: 1, keepReleases: 1, retiredGracePeriod: .seconds(3600), collectionInterval: .milliseconds(100))
        )
        try await LiveServer.withPublishing(configuration: configuration) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                _ = try await PublishingTests.publish(&connection, "g.txt", Data("old\n".utf8))
                _ = try await PublishingTests.publish(&connection, "g.txt", Data("new\n".utf8))
                // Not vacuous: two collections finished after the old version was retired.
                let runs = try await connection.metric("depot_collections_total")
                #expect(try await connection.waitForMetric("depot_collections_total", toReach: runs + 2))
                #expect(try await connection.request("GET", "/blobs/\(Fixture.sha256(Data("old\n".utf8)))").bodyText == "old\n")
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
            let first = try await RawHTTPConnection.with(port: server.port) { try await PublishingTests.publish(&$0, "big.bin", old).status }
            #expect(first == 201)
            try await RawHTTPConnection.with(port: server.port) { download in
                // The response starts; the client then stops reading, so the server is stuck in
                // the middle of the file by backpressure.
                try await download.send("GET", "/blobs/\(oldHash)")
                let second = try await RawHTTPConnection.with(port: server.port) {
                    try await PublishingTests.publish(&$0, "big.bin", Data("replacement\n".utf8)).status
                }
                #expect(second == 201)
                var files = Self.blobFiles(server)
                for _ in 0..<2_400 where files.contains(oldHash) {
                    try await Task.sleep(for: .milliseconds(50))
                    files = Self.blobFiles(server)
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
            let first = try await RawHTTPConnection.with(port: server.port) { try await PublishingTests.publish(&$0, "db.bin", versions[0]).status }
            #expect(first == 201)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await RawHTTPConnection.with(port: server.port) { connection in
                        for version in versions.dropFirst() {
                            let reply = try await PublishingTests.publish(&connection, "db.bin", version)
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

    @Test("two concurrent publishes of one path serialise into consecutive versions")
    func concurrentPublishes() async throws {
        let a = Data("A\n".utf8) + Fixture.noise
        let b = Data("B\n".utf8) + Fixture.noise
        try await LiveServer.withPublishing { server in
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for data in [a, b] {
                    group.addTask {
                        try await RawHTTPConnection.with(port: server.port) { connection in
                            let reply = try await PublishingTests.publish(&connection, "same.bin", data)
                            #expect(reply.status == 201)
                            return Int(try reply.decoded(PublishReply.self).version)
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }.sorted()
            }
            #expect(versions == [1, 2])
            let (entry, body) = try await RawHTTPConnection.with(port: server.port) { connection in
                let entry = PublishingTests.entries(try await PublishingTests.manifest(&connection)).first
                return (entry?["version"] as? Int, try await connection.request("GET", "/files/same.bin").body)
            }
            #expect(entry == 2)
            #expect([a, b].contains(Data(body)))
        }
    }
}
