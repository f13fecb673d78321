import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `DepotClient.sync` against a real server with really published files.
@Suite("Sync")
struct SyncTests {
    static let catalog = Fixture.text + Fixture.text  // compressible: fetched as gzip
    static let image = Fixture.noise  // incompressible: fetched whole

    static func client(_ server: some TestServer, _ folder: URL) -> DepotClient {
        DepotClient(server: URL(string: server.url("/"))!, directory: folder)
    }

    static func contents(_ folder: URL, _ path: String) -> Data? {
        try? Data(contentsOf: folder.appendingPathComponent(path))
    }

    @Test("the first sync downloads everything, SHA-256-exact, with the publish time as modification time")
    func firstSync() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db/catalog.sqlite", Self.catalog), ("img/logo.png", Self.image)])
            try await withTemporaryDirectory { folder in
                let report = try await Self.client(server, folder).sync()
                #expect(!report.channelNotModified)
                #expect(Self.contents(folder, "db/catalog.sqlite") == Self.catalog)
                #expect(Self.contents(folder, "img/logo.png") == Self.image)
                let outcomes = Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.outcome) })
                #expect(outcomes == ["db/catalog.sqlite": .gzip, "img/logo.png": .full])
                let catalogFile = try #require(report.files.first { $0.path == "db/catalog.sqlite" })
                #expect(catalogFile.bytesTransferred < Int64(Self.catalog.count) / 5)
                #expect(report.bytesSaved == Int64(Self.catalog.count) - catalogFile.bytesTransferred)
                let modified =
                    try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("img/logo.png").path)[.modificationDate] as? Date
                #expect(abs((modified?.timeIntervalSinceNow ?? 1000)) < 120)
                #expect(modified.map { $0.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) } == 0)
            }
        }
    }

    @Test("a second sync makes exactly one request, answered 304")
    func secondSync() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db/catalog.sqlite", Self.catalog), ("img/logo.png", Self.image)])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let before = server.requests.snapshot
                let report = try await client.sync()
                let after = server.requests.snapshot
                let new = after.filter { before[$0.key] != $0.value }
                #expect(new.count == 1)
                #expect(new.keys.first?.path == "/channels/stable")
                #expect(new.keys.first?.status == 304)
                #expect((after.values.reduce(0, +) - before.values.reduce(0, +)) == 1)
                #expect(report.channelNotModified)
                #expect(report.files.isEmpty && report.unchangedCount == 2)
                #expect(report.bytesTransferred == 0)
            }
        }
    }

    @Test("after one file is republished, only that file is transferred; a file that left the release is removed")
    func onlyChanged() async throws {
        // Without patches, so that the outcome does not depend on whether one is made in time.
        try await InProcessServer.withPublishing(configuration: .init(publish: .init(deltas: .init(distances: [])))) { server in
            try await server.publish([("db/catalog.sqlite", Self.catalog), ("img/logo.png", Self.image), ("old.txt", Data("old\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let newCatalog = Data("v2\n".utf8) + Self.catalog
                try await server.publish([("db/catalog.sqlite", newCatalog)])
                try await server.withConnection { connection in
                    _ = try await connection.request("DELETE", "/v1/files/old.txt", headers: [("Authorization", "Bearer \(InProcessServer.token)")])
                }
                let blobsBefore = server.requests.total(pathPrefix: "/blobs/")
                let report = try await client.sync()
                #expect(server.requests.total(pathPrefix: "/blobs/") - blobsBefore == 1)
                let outcomes = Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.outcome) })
                #expect(outcomes == ["db/catalog.sqlite": .gzip, "old.txt": .removed])
                #expect(report.unchangedCount == 1)
                #expect(Self.contents(folder, "db/catalog.sqlite") == newCatalog)
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("old.txt").path))
            }
        }
    }

    @Test("after one change, the release document and its changed page arrive as patches of the held ones")
    func documentPatches() async throws {
        try await InProcessServer.withPublishing { server in
            let files = (0..<300).map { ("asset-\($0).json", Data("{\"asset\": \($0)}\n".utf8)) }
            try await server.withConnection { connection in
                var commit: [String] = []
                for (path, data) in files {
                    let sha256 = Fixture.sha256(data)
                    _ = try await connection.request(
                        "PUT",
                        "/v1/blobs/\(sha256)",
                        headers: [("Authorization", "Bearer \(InProcessServer.token)")],
                        body: Array(data)
                    )
                    commit.append(#"{"path": "\#(path)", "sha256": "\#(sha256)"}"#)
                }
                let body = Array(#"{"files": [\#(commit.joined(separator: ","))]}"#.utf8)
                #expect(
                    try await connection.request("POST", "/v1/releases", headers: [("Authorization", "Bearer \(InProcessServer.token)")], body: body)
                        .status == 201
                )
            }
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                let first = try await client.sync()
                try await server.publish([("asset-7.json", Data("{\"asset\": \"seven\"}\n".utf8))])
                let before = server.requests.snapshot
                let report = try await client.sync()
                let new = server.requests.snapshot.filter { before[$0.key] != $0.value }.keys
                #expect(Self.contents(folder, "asset-7.json") == Data("{\"asset\": \"seven\"}\n".utf8))
                #expect(report.files.map(\.path) == ["asset-7.json"])
                #expect(new.filter { $0.path.hasPrefix("/deltas/") }.map(\.status) == [200, 200], "the release document and one page")
                #expect(!new.contains { $0.path.hasPrefix("/releases/") || $0.path.hasPrefix("/pages/") })
                #expect(report.documentBytes * 4 < first.documentBytes, "\(report.documentBytes) against \(first.documentBytes)")
            }
        }
    }

    @Test("a corrupted body is detected and the old file stays intact")
    func corruptBody() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("img/logo.png", Self.image)])
            try await withTemporaryDirectory { folder in
                let client = Self.client(server, folder)
                _ = try await client.sync()
                let next = Fixture.pseudoRandom(count: 100_000, seed: 5)
                try await server.publish([("img/logo.png", next)])
                // Flip bytes of the stored blob on the server: same length, wrong content.
                let sha = Fixture.sha256(next)
                let blob = server.dataDirectory.appendingPathComponent("blobs/\(sha.prefix(2))/\(sha)")
                var stored = try Data(contentsOf: blob)
                stored[50_000] ^= 0xFF
                try stored.write(to: blob)

                let report = try await failedReport { try await client.sync() }
                let file = try #require(report.files.first)
                #expect(file.outcome == .failed)
                #expect(file.error?.contains("does not match the release") == true)
                #expect(Self.contents(folder, "img/logo.png") == Self.image)
                let partials = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".depot/partial").path)
                #expect(partials.isEmpty, "the bad download is discarded")
                // The channel document is not remembered, so the next sync tries again rather than getting a 304.
                let again = try await failedReport { try await client.sync() }
                #expect(!again.channelNotModified)
            }
        }
    }
}
