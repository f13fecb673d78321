import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// A mirror that trickles bytes, each in time to restart URLSession's idle timeout: the client
/// stops it by a minimum rate over a window and a deadline per document, and releases the
/// folder's lock.
@Suite("Slow retrieval")
struct SlowRetrievalTests {
    static let blob = Data(String(repeating: "slow bytes\n", count: 10_000).utf8)

    @Test(
        "the rate rule: bytes over the last window, judged once a window has passed",
        arguments: [
            // (samples (seconds, total bytes), minimum B/s, window s, too slow at the last sample)
            ([(0.5, 0), (0.9, 10)], 100, 1.0, false),  // not a whole window yet
            ([(0.5, 40), (1.0, 90)], 100, 1.0, true),  // 90 bytes in the first second
            ([(0.5, 60), (1.0, 100)], 100, 1.0, false),  // 100 in the first second
            ([(1.0, 100), (2.0, 150)], 100, 1.0, true),  // fast, then slow for a whole window
            ([(1.0, 100), (1.5, 120), (2.0, 200)], 100, 1.0, false),  // 100 over the last second
            ([(1.0, 0), (2.0, 0)], 0, 1.0, false),  // off
        ] as [([(Double, Int64)], Int, Double, Bool)]
    )
    func rateRule(samples: [(Double, Int64)], minimum: Int, window: Double, tooSlow: Bool) {
        var rate = TransferRate(minimumBytesPerSecond: minimum, window: window)
        var last = false
        for (time, total) in samples { last = rate.isTooSlow(total: total, at: time) }
        #expect(last == tooSlow)
    }

    /// Runs `body` on a client whose transfers are judged by `clock`, and, once the relay has
    /// seen a request starting with `started` (the trickled one: the documents before it came
    /// at full speed, whatever the machine's load), moves `clock` on by `step` every 50 ms until
    /// `body` ends. A client that does not stop a trickle fails the test after 1,000 steps.
    static func advancing<Result: Sendable>(
        _ clock: ManualClock,
        by step: Duration,
        once relay: InProcessRelay,
        saw started: String,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                while relay.requests(startingWith: started) == 0 { try await Task.sleep(for: .milliseconds(20)) }
                // Hang guard: slowest seen 2.9 s under two busy loops (the whole test).
                for _ in 0..<1_000 {
                    try await Task.sleep(for: .milliseconds(50))
                    clock.advance(by: step)
                }
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return try #require(first, "still running after 1,000 steps of its clock")
        }
    }

    static func withTrickle(_ pathPrefix: String, _ body: @Sendable (InProcessServer, InProcessRelay, URL) async throws -> Void) async throws {
        let release = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob)])
        let prepare: (URL) throws -> Void = { try release.write(to: $0.appendingPathComponent("evil"), blobs: [Self.blob]) }
        try await InProcessServer.with(prepare: prepare) { server in
            try await InProcessRelay.with(in: server) { relay in
                // About 1,000 bytes a second of real time: quick by any wall clock, so only the
                // client's own clock, moved by the test far faster, can find it too slow.
                relay.trickle(pathPrefix, bytes: 1, every: .milliseconds(1))
                try await withTemporaryDirectory { root in try await body(server, relay, root.appendingPathComponent("sync")) }
            }
        }
    }

    @Test("a download trickled below the minimum rate fails once a window has passed, and the folder's lock is released")
    func trickledDownload() async throws {
        try await Self.withTrickle("/evil/blobs/") { server, relay, folder in
            let clock = ManualClock()
            let slow = DepotClient(
                server: URL(string: relay.url("/evil/"))!,
                directory: folder,
                configuration: .init(minimumTransferRate: 10, transferRateWindow: 3, transferClock: clock)
            )
            // 1,000 s of the client's clock each step: far fewer than 10 bytes a second of it
            // trickle in. By the wall clock the 110 kB would come, at about 1,000 bytes a second.
            let report = try await Self.advancing(clock, by: .seconds(1000), once: relay, saw: "GET /evil/blobs/") {
                try await failedReport { try await slow.sync() }
            }
            let file = try #require(report.files.first)
            #expect(file.outcome == .failed)
            #expect(file.error?.contains("slower than 10 bytes/s over 3 s") == true, "\(file.error ?? "")")
            // The lock is free: the same folder syncs straight from the server.
            let direct = DepotClient(server: URL(string: server.url("/evil/"))!, directory: folder)
            #expect(try await direct.sync().release?.number == 1)
            #expect(try Data(contentsOf: folder.appendingPathComponent("a.bin")) == Self.blob)
        }
    }

    @Test("a document not whole by its deadline fails the sync")
    func documentDeadline() async throws {
        try await Self.withTrickle("/evil/channels/") { _, relay, folder in
            let clock = ManualClock()
            let slow = DepotClient(
                server: URL(string: relay.url("/evil/"))!,
                directory: folder,
                // No minimum rate: the deadline alone ends the transfer, at the first step of the
                // client's clock. By the wall clock the document would be whole within a second.
                configuration: .init(minimumTransferRate: 0, transferClock: clock, documentTimeout: 1)
            )
            await #expect {
                try await Self.advancing(clock, by: .seconds(1), once: relay, saw: "GET /evil/channels/") { try await slow.sync() }
            } throws: { error in
                (error as? SyncError)?.code == .network && "\(error)".contains("/evil/channels/stable did not arrive within 1 s")
            }
        }
    }
}
