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
                configuration.publish.tokens = [PublishToken.secret]
                configuration.dataDirectory = data.path
                let small = Data("small and fine\n".utf8)
                let large = Fixture.pseudoRandom(count: 3 << 20, seed: 9)
                try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                    try await server.connection { connection in
                        #expect(try await connection.publish("f.bin", small).status == 201)
                        let full = try await connection.publish("f.bin", large)
                        #expect(full.status == 507)
                        #expect(full.bodyText.contains("no space"))
                        #expect(Data(try await connection.request("GET", "/files/f.bin").body) == small)
                    }
                    #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
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
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                var previous: String?
                for round in 0..<6 {
                    // Mostly the same bytes each round: a patch from the previous version pays.
                    var content = Fixture.pseudoRandom(count: 2 << 20, seed: 11)
                    content.replaceSubrange(0..<8, with: Fixture.pseudoRandom(count: 8, seed: UInt64(101 + 2 * round)))
                    let sha256 = Fixture.sha256(content)
                    let put = try await connection.request("PUT", "/v1/blobs/\(sha256)", headers: [PublishToken.authorization], body: Array(content))
                    #expect(put.status == 201)
                    let commit = #"{"files": [{"path": "big.bin", "sha256": "\#(sha256)"}]}"#
                    let committed = try await connection.request(
                        "POST",
                        "/v1/releases",
                        headers: [PublishToken.authorization, ("Content-Type", "application/json")],
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
