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
    /// A server with `db.bin` published as ``first``, a relay in front of it, and a client of an
    /// empty folder that talks through the relay.
    static func withRelayedClient(_ body: @Sendable (InProcessServer, InProcessRelay, URL, DepotClient) async throws -> Void) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", Fixture.resumeFirst)])
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
            let partial = try #require(Fixture.partials(folder).first)
            let kept = Fixture.fileSize(partial)
            #expect(kept > 900_000 && kept < 1_000_000)

            let resumed = try await client.sync()
            let file = try #require(resumed.files.first)
            #expect(file.outcome == .resumed)
            #expect(file.bytesTransferred == Int64(Fixture.resumeSize) - kept)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Fixture.resumeFirst)
            let sha = Fixture.sha256(Fixture.resumeFirst)
            #expect(server.requests.snapshot.contains { $0.key.path == "/blobs/\(sha)" && $0.key.status == 206 })
            #expect(Fixture.partials(folder).isEmpty)
        }
    }

    @Test("a file republished between the cut and the resume: the new version arrives whole, the stale part is dropped")
    func republishedBetween() async throws {
        try await Self.withRelayedClient { server, relay, folder, client in
            relay.cutNextBlobResponse(after: 1_000_000)
            _ = try await failedReport { try await client.sync() }
            #expect(Fixture.partials(folder).count == 1)
            try await server.publish([("db.bin", Fixture.resumeSecond)])

            let report = try await client.sync()
            #expect(report.files.first?.outcome == .full)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Fixture.resumeSecond)
            #expect(Fixture.partials(folder).isEmpty)
        }
    }

    @Test(
        "a first server that sends wrong bytes under the origin's ETag, then closes, costs one download: the next resumes, the hash fails, and the file is fetched again whole"
    )
    func poisonedPartial() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", Fixture.resumeFirst)])
            try await InProcessRelay.with(in: server) { relay in
                relay.tamper("/blobs/")
                relay.cutNextBlobResponse(after: 1000)
                try await withTemporaryDirectory { folder in
                    let servers = try [relay.url("/"), server.url("/")].map { try #require(URL(string: $0)) }
                    let report = try await DepotClient(servers: servers, directory: folder).sync()
                    #expect(report.files.map(\.outcome) == [.full], "\(report.files)")
                    #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Fixture.resumeFirst)
                    #expect(Fixture.partials(folder).isEmpty)
                    // A second sync has nothing left to fail on.
                    #expect(try await DepotClient(servers: servers, directory: folder).sync().files.isEmpty)
                }
            }
        }
    }

    @Test("when If-Range does not match, the 200 restarts the partial file cleanly")
    func ifRangeRestart() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("db.bin", Fixture.resumeFirst)])
            try await withTemporaryDirectory { folder in
                let partial = folder.appendingPathComponent("stale.partial")
                try Data(repeating: 0xEE, count: 500_000).write(to: partial)
                let download = BlobDownload(
                    url: URL(string: server.url("/blobs/\(Fixture.sha256(Fixture.resumeFirst))"))!,
                    entityTag: "\"a-validator-that-no-longer-matches\"",
                    expectedLength: Int64(Fixture.resumeSize),
                    partialFile: try FolderFile.at(partial, creating: false)
                )
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder)
                let session = TransferSession(configuration: client.sessionConfiguration, limits: .init(minimumBytesPerSecond: 0, window: 30))
                defer { session.finish() }
                let (outcome, transferred) = try await download.run(session: session) { _ in }
                #expect(outcome == .full)
                #expect(transferred == Int64(Fixture.resumeSize))
                #expect(try Data(contentsOf: partial) == Fixture.resumeFirst)
            }
        }
    }
}

extension ResumeTests {
    @Test("cancelling a sync throws CancellationError, leaves the old file whole, and the next sync resumes")
    func cancelled() async throws {
        try await Self.withRelayedClient { server, relay, folder, client in
            _ = try await client.sync()
            try await server.publish([("db.bin", Fixture.resumeSecond)])
            // 16 KiB of each blob every 20 ms: the download is under way when the sync is cancelled.
            relay.trickle("/blobs/", bytes: 16 << 10, every: .milliseconds(20))
            let task = Task { try await client.sync() }
            var partial: Int64 = 0
            // Hang guard: slowest seen 7.1 s under two busy loops (the whole test).
            for _ in 0..<12_000 where partial < 200_000 {
                try await Task.sleep(for: .milliseconds(10))
                partial = Fixture.partials(folder).first.map(Fixture.fileSize) ?? 0
            }
            task.cancel()
            // The caller hears its own cancellation, not a failed file (issue 58).
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Fixture.resumeFirst)
            relay.trickle(nil)
            let report = try await client.sync()
            #expect(report.files.first?.outcome == .resumed)
            #expect(try Data(contentsOf: folder.appendingPathComponent("db.bin")) == Fixture.resumeSecond)
        }
    }
}
