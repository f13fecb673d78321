import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Retention, collection of unreferenced blobs, and publishes racing with each other: in process,
/// through the router (downloads racing with them, over a socket: ConnectionStreamingTests).
@Suite("Retention and concurrency")
struct RetentionAndConcurrencyTests {
    static let auth = PublishToken.authorization

    @Test("the last K versions are kept; older blobs are collected once the grace period has passed")
    func retention() async throws {
        let configuration = ServerConfiguration(
            publish: .init(keepVersions: 2, keepReleases: 2, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
        )
        let versions = (1...3).map { Data("version \($0)\n".utf8) + Fixture.text }
        let hashes = versions.map(Fixture.sha256)
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                for version in versions {
                    #expect(try await connection.publish("r.txt", version).status == 201)
                }
                // Version 1 is retired: after the (zero) grace period its blob and gzip variant go.
                // However slowly a loaded machine runs the collections: the bound only guards a hang.
                var files = Fixture.blobFiles(server.dataDirectory)
                // Hang guard: slowest seen 1.9 s under two busy loops (the whole test).
                for _ in 0..<12_000 where files.contains(hashes[0]) || files.contains(hashes[0] + ".gz") {
                    try await Task.sleep(for: .milliseconds(50))
                    files = Fixture.blobFiles(server.dataDirectory)
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
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                _ = try await connection.publish("g.txt", Data("old\n".utf8))
                _ = try await connection.publish("g.txt", Data("new\n".utf8))
                // Not vacuous: two collections finished after the old version was retired.
                let runs = try await connection.metric("depot_collections_total")
                #expect(try await connection.waitForMetric("depot_collections_total", toReach: runs + 2))
                #expect(try await connection.request("GET", "/blobs/\(Fixture.sha256(Data("old\n".utf8)))").bodyText == "old\n")
            }
        }
    }

    @Test("two concurrent publishes of one path serialise into consecutive versions")
    func concurrentPublishes() async throws {
        let a = Data("A\n".utf8) + Fixture.noise
        let b = Data("B\n".utf8) + Fixture.noise
        try await InProcessServer.withPublishing { server in
            let versions = try await withThrowingTaskGroup(of: Int.self) { group in
                for data in [a, b] {
                    group.addTask {
                        try await server.connection { connection in
                            let reply = try await connection.publish("same.bin", data)
                            #expect(reply.status == 201)
                            return Int(try reply.decoded(PublishReply.self).version)
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }.sorted()
            }
            #expect(versions == [1, 2])
            let (entry, body) = try await server.connection { connection in
                let entry = ClientManifest.entries(try await ClientManifest.read(&connection)).first
                return (entry?["version"] as? Int, try await connection.request("GET", "/files/same.bin").body)
            }
            #expect(entry == 2)
            #expect([a, b].contains(Data(body)))
        }
    }
}
