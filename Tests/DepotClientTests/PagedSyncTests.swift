import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// A sync a batch of pages at a time (``SyncAttempt/runPaged(_:from:)``), against a real server
/// whose release has several pages, here a page a batch.
@Suite("A sync a batch of pages at a time")
struct PagedSyncTests {
    /// 80 files (two pages: more than 64), ten of them one content, in both pages.
    static let files: [(String, Data)] = (0..<80).map { number in
        ("files/\(number).txt", Data((number % 8 == 0 ? "shared\n" : "file \(number)\n").utf8))
    }

    /// Runs a sync of `client`'s folder a page a batch, telling `progress`.
    static func syncPaged(_ client: DepotClient, progress: ProgressSink = ProgressSink()) async throws -> SyncReport {
        var attempt = SyncAttempt(client: client, server: client.server, goal: .apply, progress: progress)
        attempt.entriesPerBatch = 1
        defer { attempt.session.finish() }
        return try await attempt.run().0
    }

    @Test(
        "a first sync and an update, a page a batch: every file in place, a content shared across pages staged once and copied, removals done, the report in path order"
    )
    func pageAtATime() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish(Self.files)
            try await withTemporaryDirectory { folder in
                let client = SyncTests.client(server, folder)
                let first = try await Self.syncPaged(client)
                let id = try #require(client.currentRelease?.id)
                let document = try #require(client.cache.release(id))
                #expect(document.pages.count == 2)
                #expect(first.failedCount == 0 && first.updatedCount == 80)
                #expect(first.files.map(\.path) == first.files.map(\.path).sorted())
                for (path, content) in Self.files { #expect(SyncTests.contents(folder, path) == content, "\(path)") }

                // Republished: a shared file changes, another file leaves, one is added.
                try await server.publish([("files/0.txt", Data("changed\n".utf8)), ("files/new.txt", Data("shared\n".utf8))])
                let delete = try await RolloutFleetTests.send(server, "DELETE", "/v1/files/files/1.txt")
                #expect([200, 204].contains(delete.status), "\(delete.bodyText)")
                let second = try await Self.syncPaged(client)
                #expect(second.failedCount == 0 && second.updatedCount == 2 && second.removedCount == 1)
                #expect(SyncTests.contents(folder, "files/0.txt") == Data("changed\n".utf8))
                #expect(SyncTests.contents(folder, "files/new.txt") == Data("shared\n".utf8))
                #expect(SyncTests.contents(folder, "files/1.txt") == nil)
                #expect(SyncTests.contents(folder, "files/8.txt") == Data("shared\n".utf8))
                #expect(client.currentRelease?.files == 80)
            }
        }
    }

    @Test(
        "with a progress stream and a budget (the updater's download), still a page a batch: the first progress says what the unpaged estimate says, every file comes, and a budget too small refuses before any file is fetched"
    )
    func estimated() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish(Self.files)
            try await withTemporaryDirectory { folder in
                var configuration = DepotClient.Configuration()
                configuration.maximumTransferBytes = 10
                let url = URL(string: server.url("/"))!
                let refusing = DepotClient(server: url, directory: folder, configuration: configuration)
                let error = await #expect(throws: SyncError.self) {
                    _ = try await Self.syncPaged(refusing, progress: ProgressSink(overall: { _ in }))
                }
                #expect(error?.code == .overBudget, "\(String(describing: error))")
                #expect(SyncStepsTests.files(folder, ".depot/partial") == [] && SyncStepsTests.files(folder, ".depot/staging") == [])

                configuration.maximumTransferBytes = 1_000_000
                let client = DepotClient(server: url, directory: folder, configuration: configuration)
                let expected = try await client.check()
                let seen = ProgressRecord()
                let progress = ProgressSink(overall: { seen.add($0) })
                let probe = SyncAttempt(client: client, server: url, goal: .apply, progress: progress)
                defer { probe.session.finish() }
                guard case .newRelease(let channel) = try await probe.poll(SyncStart(client)) else {
                    Issue.record("no new release")
                    return
                }
                #expect(probe.isPaged(channel), "a sync with a budget and a progress stream goes a batch at a time")

                let report = try await Self.syncPaged(client, progress: progress)
                #expect(report.failedCount == 0 && report.updatedCount == 80)
                for (path, content) in Self.files { #expect(SyncTests.contents(folder, path) == content, "\(path)") }
                let first = try #require(seen.all.first)
                #expect(first.bytesExpected == expected.expectedBytes && first.bytesExpected > 0)
                #expect(first.filesTotal == expected.files.count && first.filesTotal == 80)
                #expect(seen.all.last?.filesDone == 80)
            }
        }
    }
}

/// The progress a sync told, in order.
private final class ProgressRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: [SyncProgress] = []

    func add(_ element: SyncProgress) { lock.withLock { progress.append(element) } }
    var all: [SyncProgress] { lock.withLock { progress } }
}
