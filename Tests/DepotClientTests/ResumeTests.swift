import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Interrupted downloads, with faults injected by a relay between the real client and the real
/// server, in process (``InProcessRelay``). A `depot sync` process killed mid-download is
/// ``ResumeKillTests``.
@Suite("Resuming downloads")
struct ResumeTests {
    static let size = 3_000_000
    static let first = Fixture.pseudoRandom(count: size, seed: 21)
    static let second = Fixture.pseudoRandom(count: size, seed: 23)

    /// The partial downloads, without the ETags kept beside them.
    static func partials(_ folder: URL) -> [URL] {
        let partial = folder.appendingPathComponent(".depot/partial")
        return ((try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []).filter { !$0.hasSuffix(".etag") }
            .map { partial.appendingPathComponent($0) }
    }

    static func size(_ url: URL) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? -1
    }

    /// A server with `db.bin` published as ``first``, a relay in front of it, and a client of an
    /// empty folder that talks through the relay.
    static func withRelayedClient(_ body: @Sendable (InProcessServer, InProcessRelay, URL, DepotClient) async throws -> Void) async throws {
        try await InProcessServer.withPublishing { server in
            try await SyncTests.publish(server, [("db.bin", Self.first)])
            try await InProcessRelay.with(in: server) { relay in
                try await withTemporaryDirectory { folder in
                    let client = DepotClient(server: URL(string: relay.url("/"))!, directory: folder)
                    try await body(server, relay, folder, client)
                }
            }
        }
    }

    @Test("a download cut after N bytes resumes with a 206 and transfers only the rest")
    func cutAndResume() async throws {
        try await Self.withRelayedClient { server, relay, folder, client in
            // Body bytes (the relay on a socket counted the head's few hundred too).
            relay.cutNextBlobResponse(after: 999_000)
            let broken = try await failedReport { try await client.sync() }
            #expect(broken.files.first?.outcome == .failed)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("db.bin").path))
            let partial = try #require(Self.partials(folder).first)
            let kept = Self.size(partial)
            #expect(kept > 900_000 && kept < 1_000_000)

            let resumed = try await client.sync()
            let file = try #require(resumed.files.first)
            #expect(file.outcome == .resumed)
            #expect(file.bytesTransferred == Int64(Self.size) - kept)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.first)
            let sha = Fixture.sha256(Self.first)
            #expect(server.requests.snapshot.contains { $0.key.path == "/blobs/\(sha)" && $0.key.status == 206 })
            #expect(Self.partials(folder).isEmpty)
        }
    }

    @Test("a file republished between the cut and the resume: the new version arrives whole, the stale part is dropped")
    func republishedBetween() async throws {
        try await Self.withRelayedClient { server, relay, folder, client in
            relay.cutNextBlobResponse(after: 1_000_000)
            _ = try await failedReport { try await client.sync() }
            #expect(Self.partials(folder).count == 1)
            try await SyncTests.publish(server, [("db.bin", Self.second)])

            let report = try await client.sync()
            #expect(report.files.first?.outcome == .full)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.second)
            #expect(Self.partials(folder).isEmpty)
        }
    }

    @Test(
        "a first server that sends wrong bytes under the origin's ETag, then closes, costs one download: the next resumes, the hash fails, and the file is fetched again whole"
    )
    func poisonedPartial() async throws {
        try await InProcessServer.withPublishing { server in
            try await SyncTests.publish(server, [("db.bin", Self.first)])
            try await InProcessRelay.with(in: server) { relay in
                relay.tamper("/blobs/")
                relay.cutNextBlobResponse(after: 1000)
                try await withTemporaryDirectory { folder in
                    let servers = try [relay.url("/"), server.url("/")].map { try #require(URL(string: $0)) }
                    let report = try await DepotClient(servers: servers, directory: folder).sync()
                    #expect(report.files.map(\.outcome) == [.full], "\(report.files)")
                    #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.first)
                    #expect(Self.partials(folder).isEmpty)
                    // A second sync has nothing left to fail on.
                    #expect(try await DepotClient(servers: servers, directory: folder).sync().files.isEmpty)
                }
            }
        }
    }

    @Test("when If-Range does not match, the 200 restarts the partial file cleanly")
    func ifRangeRestart() async throws {
        try await InProcessServer.withPublishing { server in
            try await SyncTests.publish(server, [("db.bin", Self.first)])
            try await withTemporaryDirectory { folder in
                let partial = folder.appendingPathComponent("stale.partial")
                try Data(repeating: 0xEE, count: 500_000).write(to: partial)
                let download = BlobDownload(
                    url: URL(string: server.url("/blobs/\(Fixture.sha256(Self.first))"))!,
                    entityTag: "\"a-validator-that-no-longer-matches\"",
                    expectedLength: Int64(Self.size),
                    partialFile: try FolderFile.at(partial, creating: false)
                )
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder)
                let session = TransferSession(configuration: client.sessionConfiguration, limits: .init(minimumBytesPerSecond: 0, window: 30))
                defer { session.finish() }
                let (outcome, transferred) = try await download.run(session: session) { _ in }
                #expect(outcome == .full)
                #expect(transferred == Int64(Self.size))
                #expect(try Data(contentsOf: partial) == Self.first)
            }
        }
    }
}

extension ResumeTests {
    @Test("cancelling a sync throws CancellationError, leaves the old file whole, and the next sync resumes")
    func cancelled() async throws {
        try await Self.withRelayedClient { server, relay, folder, client in
            _ = try await client.sync()
            try await SyncTests.publish(server, [("db.bin", Self.second)])
            // 16 KiB of each blob every 20 ms: the download is under way when the sync is cancelled.
            relay.trickle("/blobs/", bytes: 16 << 10, every: .milliseconds(20))
            let task = Task { try await client.sync() }
            var partial: Int64 = 0
            // Hang guard: slowest seen 7.1 s under two busy loops (the whole test).
            for _ in 0..<12_000 where partial < 200_000 {
                try await Task.sleep(for: .milliseconds(10))
                partial = Self.partials(folder).first.map(Self.size) ?? 0
            }
            task.cancel()
            // The caller hears its own cancellation, not a failed file (issue 58).
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.first)
            relay.trickle(nil)
            let report = try await client.sync()
            #expect(report.files.first?.outcome == .resumed)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Self.second)
        }
    }
}
