import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Downloads under way while what they read is republished or collected: the socket's
/// backpressure and many readers at once are the subject, so these run over real connections.
@Suite("Downloads while content changes")
struct DownloadDuringChangeTests {
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
                var files = RetentionAndConcurrencyTests.blobFiles(server.dataDirectory)
                // Hang guard: slowest seen 12.9 s under two busy loops (the whole test).
                for _ in 0..<2_400 where files.contains(oldHash) {
                    try await Task.sleep(for: .milliseconds(50))
                    files = RetentionAndConcurrencyTests.blobFiles(server.dataDirectory)
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
}
