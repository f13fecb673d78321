import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 58, attack: a check the folder cannot record. A relaunched ``DepotUpdater`` counts the
/// interval from the check recorded in the folder (`.depot/updater.json`); on a full disk the
/// check succeeds but its record fails, and the old record must not make every next check
/// overdue: the updater asked the server again at once, forever, as fast as it answered.
@Suite("DepotUpdater on a full disk")
struct UpdaterFullDiskTests {
    static let interval = Duration.seconds(3600)

    @Test(
        "a check the full folder cannot record: the next one is still a whole interval away, not at once",
        .enabled(if: getuid() == 0),
        .timeLimit(.minutes(10))
    )
    func unrecordedCheck() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one".utf8))])
            try await withTemporaryDirectory { root in
                let small = root.appendingPathComponent("small")
                try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
                let mount = try await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small.path])
                try #require(mount.status == 0)
                let outcome: Result<(Duration?, Duration?, UpdateState), any Error>
                do {
                    outcome = .success(try await Self.delays(server, small.appendingPathComponent("app")))
                } catch {
                    outcome = .failure(error)
                }
                // Unmounted lazily (a descriptor may still be open); scripts/test unmounts what a
                // crash leaves.
                _ = try await ChildProcess.run("/bin/umount", ["-l", small.path])
                let (first, second, state) = try outcome.get()
                #expect(first == .zero, "the check recorded a day ago is overdue: at once")
                guard case .upToDate = state else {
                    Issue.record("the check failed: \(state)")
                    return
                }
                #expect(second == Self.interval, "the next check after an unrecorded one: \(second.map { "\($0)" } ?? "none")")
            }
        }
    }

    /// Syncs `folder` (on the small file system), records a check a day ago, fills the disk, and
    /// runs an updater: the first two delays it waits, and its state after its first check.
    static func delays(_ server: some TestServer, _ folder: URL) async throws -> (Duration?, Duration?, UpdateState) {
        // No health reports: a report delivered during the check removes its queue file, and the
        // block that frees would let the record of the check be written after all.
        var settings = DepotClient.Configuration()
        settings.sendsReports = false
        let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: settings)
        _ = try await client.sync()
        let now = Date()
        let stamp = #"{"checkedAt":\#(Int64(now.timeIntervalSince1970) - 86_400)}"#
        try Data(stamp.utf8).write(to: folder.appendingPathComponent(".depot/updater.json"))
        try fill(folder.appendingPathComponent("filler"))

        let clock = ManualClock()
        let configuration = DepotUpdater.Configuration(interval: interval, jitter: 0, clock: clock, now: { now })
        let (delays, scheduled) = AsyncStream.makeStream(of: Duration.self)
        let updater = DepotUpdater(client: client, configuration: configuration, scheduled: { scheduled.yield($0) })
        var states = updater.states.makeAsyncIterator()
        _ = await states.next()
        let running = Task { await updater.run() }
        var waits = delays.makeAsyncIterator()
        let first = await waits.next()
        #expect(await states.next() == .checking)
        let state = await states.next() ?? .idle
        // Nothing new: the check ends where it started, its record refused by the full disk.
        let second = await waits.next()
        running.cancel()
        await running.value
        let kept = try? String(contentsOf: folder.appendingPathComponent(".depot/updater.json"), encoding: .utf8)
        #expect(kept == stamp, "the full disk took the record of the check")
        return (first, second, state)
    }

    /// Writes `file` until its file system is full.
    static func fill(_ file: URL) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
    }
}
