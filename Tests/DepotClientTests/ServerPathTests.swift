import DepotClient
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// A server URL with a path and no trailing slash, as an S3 path-style bucket, is a folder: the
/// tree is read below it (the client's one rule, ``DepotClient/init(servers:directory:configuration:)``).
@Suite("Server paths")
struct ServerPathTests {
    static let blob = Data(String(repeating: "catalog row\n", count: 400).utf8)

    @Test("an S3 path-style server URL, a path and no trailing slash: the tree is read below it, not below its parent")
    func pathStyleBucket() async throws {
        let release = FakeRelease(entries: [FakeRelease.entry("catalog.bin", Self.blob)])
        let prepare: (URL) throws -> Void = { try release.write(to: $0.appendingPathComponent("bucket/prefix"), blobs: [Self.blob]) }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let bucket = try #require(URL(string: server.url("/bucket/prefix")))
                let report = try await DepotClient(server: bucket, directory: folder).sync()
                #expect(report.release?.number == 1 && report.updatedCount == 1 && report.server == server.url("/bucket/prefix/"))
                let synced = try Data(contentsOf: folder.appendingPathComponent("catalog.bin"))
                #expect(synced == Self.blob)
                #expect(server.requests.total(pathPrefix: "/bucket/prefix/blobs/") == 1)
                #expect(server.requests.total(pathPrefix: "/bucket/blobs/") == 0)
            }
        }
    }
}
