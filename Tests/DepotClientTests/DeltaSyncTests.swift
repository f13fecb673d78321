import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// A client that holds an earlier version downloads the patch the manifest lists, applies it,
/// verifies the result and replaces the file atomically; any failure falls back to the full
/// download.
@Suite("Sync with deltas")
struct DeltaSyncTests {
    /// A catalog-like text file of about 1 MB, and a version with 1% of its records changed.
    static let version1 = Data((0..<25_000).map { "\($0)\titem-\($0 * 7919 % 10007)\tstock=\($0 % 97)\tprice=\($0 % 997)\n" }.joined().utf8)
    static let version2: Data = {
        var lines = String(decoding: version1, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for id in stride(from: 0, to: 25_000, by: 100) { lines[id] = "\(id)\titem-\(id * 7919 % 10007)\tstock=0\tprice=\(id % 991)" }
        return Data(lines.joined(separator: "\n").utf8)
    }()

    static func publishVersions(_ server: some TestServer, then body: (inout TestServerConnection) async throws -> Void) async throws {
        try await server.withConnection { connection in
            let auth = ("Authorization", "Bearer \(InProcessServer.token)")
            #expect(try await connection.request("PUT", "/v1/files/db/catalog.txt", headers: [auth], body: Array(Self.version1)).status == 201)
            try await body(&connection)
            #expect(try await connection.request("PUT", "/v1/files/db/catalog.txt", headers: [auth], body: Array(Self.version2)).status == 201)
            for _ in 0..<200 {
                let files = try await connection.releaseFiles()
                if files.first?["patches"] != nil { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("no patch appeared in the manifest")
        }
    }

    @Test("holding the previous version, a sync downloads only the patch: under 1% of the gzip download")
    func syncsThroughThePatch() async throws {
        try await InProcessServer.withPublishing { server in
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder)
                try await Self.publishVersions(server) { _ in _ = try await client.sync() }
                let blobs = server.requests.total(pathPrefix: "/blobs/")
                let deltas = server.requests.total(pathPrefix: "/deltas/")
                let report = try await client.sync()
                let file = try #require(report.files.first)
                #expect(file.outcome == .delta, "\(file)")
                // The file's patch, and those of the release document and of its one page.
                #expect(server.requests.total(pathPrefix: "/deltas/") - deltas == 3)
                #expect(server.requests.total(pathPrefix: "/deltas/", pathSuffix: Fixture.sha256(Self.version2)) == 1)
                #expect(server.requests.total(pathPrefix: "/blobs/") == blobs)
                #expect(try Data(contentsOf: folder.appendingPathComponent("db/catalog.txt")) == Self.version2)
                let gzipSize = try await Fixture.gzipSize(Self.version2)
                // The patch itself; the manifest adds about 1.5 KB, which matters only for small files.
                #expect(file.bytesTransferred * 100 < gzipSize, "\(file.bytesTransferred) bytes for a \(gzipSize)-byte gzip")
                #expect(report.bytesSaved == Int64(Self.version2.count) - file.bytesTransferred)
                let partials = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".depot/partial").path)
                #expect(partials.isEmpty)
            }
        }
    }

    @Test("a corrupt patch, or a base that was changed locally, falls back to the full download")
    func fallsBackToTheFullDownload() async throws {
        try await InProcessServer.withPublishing { server in
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder)
                try await Self.publishVersions(server) { _ in _ = try await client.sync() }
                // The local copy was edited behind the client's back: the patch makes the wrong bytes.
                let local = folder.appendingPathComponent("db/catalog.txt")
                var edited = try Data(contentsOf: local)
                edited[1000] ^= 0x20
                try edited.write(to: local)
                let report = try await client.sync()
                let file = try #require(report.files.first)
                #expect(file.outcome == .gzip, "\(file)")
                #expect(try Data(contentsOf: local) == Self.version2)
            }
        }
        try await InProcessServer.withPublishing { server in
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder)
                try await Self.publishVersions(server) { _ in _ = try await client.sync() }
                // Flip a byte of the stored patch on the server.
                let sha = try await server.withConnection { connection in
                    let entry = try #require((try await connection.releaseFiles()).first)
                    return try #require((entry["patches"] as? [[String: Any]])?.first?["sha256"] as? String)
                }
                let blob = server.dataDirectory.appendingPathComponent("blobs/\(sha.prefix(2))/\(sha)")
                var stored = try Data(contentsOf: blob)
                stored[stored.count / 2] ^= 0xFF
                try stored.write(to: blob)
                let before = server.requests.total(pathPrefix: "/blobs/")
                let report = try await client.sync()
                let file = try #require(report.files.first)
                #expect(file.outcome == .gzip, "\(file)")
                #expect(server.requests.total(pathPrefix: "/blobs/") - before == 1)
                #expect(file.bytesTransferred > stored.count, "the patch's bytes count too")
                #expect(try Data(contentsOf: folder.appendingPathComponent("db/catalog.txt")) == Self.version2)
            }
        }
    }
}

extension Fixture {
    /// The length of `data` compressed with `gzip -9`.
    static func gzipSize(_ data: Data) async throws -> Int64 {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("data")
            try data.write(to: file)
            return Int64(try await ChildProcess.run("/usr/bin/gzip", ["-9", "-c", file.path]).standardOutput.count)
        }
    }
}
