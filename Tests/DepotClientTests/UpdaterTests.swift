import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 58: the updater against a live server, on a clock only the test moves: a check at the
/// interval downloads the new release and stands ready; each policy applies when it says, and
/// only then. And the folder's state without the network (``DepotClient/stagedUpdate``).
/// Each test's time limit is a hang guard only: alone, each passes in under a second; in CI's
/// full run on 2 cores, with every suite at once, they took up to 196 s (2 minutes failed them).
/// Hang guard: slowest seen 4.1 s under two busy loops (one test at a time).
@Suite("DepotUpdater")
struct UpdaterTests {
    static let interval = Duration.seconds(3600)
    static let text = Data(Fixture.text + Fixture.text)

    static func configuration(_ policy: DepotUpdater.ApplyPolicy, clock: ManualClock) -> DepotUpdater.Configuration {
        DepotUpdater.Configuration(interval: interval, jitter: 0, policy: policy, clock: clock)
    }

    /// The states `states` goes through until one `until` accepts, that one included.
    static func states(_ states: inout AsyncStream<UpdateState>.Iterator, until: (UpdateState) -> Bool) async -> [UpdateState] {
        var seen: [UpdateState] = []
        while let state = await states.next() {
            seen.append(state)
            if until(state) { break }
        }
        return seen
    }

    static func isReady(_ state: UpdateState) -> Bool { if case .ready = state { true } else { false } }

    @Test("stagedUpdate: nil before a download, the release, its bytes and time after, nil after apply; currentRelease after a sync")
    func stagedUpdate() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            #expect(client.currentRelease?.number == 1)
            #expect(client.stagedUpdate == nil)
            try await server.publish([("doc.txt", Self.text)])
            _ = try await client.check()
            #expect(client.stagedUpdate == nil, "a check staged something")

            let before = Date()
            let report = try await client.download()
            let staged = try #require(client.stagedUpdate)
            #expect(staged.release == report.staged && staged.release.number == 2)
            #expect(staged.base == client.currentRelease?.id)
            #expect(staged.bytes == Int64(Self.text.count))
            let stagedAt = try #require(staged.stagedAt)
            #expect(stagedAt.timeIntervalSince1970 >= before.timeIntervalSince1970.rounded(.down))

            let applied = try client.apply()
            #expect(applied == staged.release && client.currentRelease == staged.release)
            #expect(client.stagedUpdate == nil, "still staged after apply")
        }
    }

    @Test(
        "applyOnSignal: no check before the interval; at it, downloading, then ready with the folder unchanged; applied only by applyNow",
        .timeLimit(.minutes(10))
    )
    func applyOnSignal() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            try await server.publish([("doc.txt", Self.text)])
            let clock = ManualClock()
            let (delays, scheduled) = AsyncStream.makeStream(of: Duration.self)
            let updater = DepotUpdater(
                client: client,
                configuration: Self.configuration(.applyOnSignal, clock: clock),
                scheduled: { scheduled.yield($0) }
            )
            var states = updater.states.makeAsyncIterator()
            var waits = delays.makeAsyncIterator()
            guard case .upToDate(let held) = await states.next(), held.number == 1 else {
                Issue.record("not at release 1")
                return
            }

            let running = Task { await updater.run() }
            defer { running.cancel() }
            #expect(await waits.next() == Self.interval)
            clock.advance(by: Self.interval - .seconds(1))
            #expect(clock.sleepers == 1 && updater.state == .upToDate(held), "checked before the interval")
            clock.advance(by: .seconds(1))
            let seen = await Self.states(&states, until: Self.isReady)
            #expect(seen.first == .checking)
            #expect(seen.contains { if case .downloading = $0 { true } else { false } }, "\(seen)")
            guard case .ready(let staged) = seen.last else {
                Issue.record("\(seen)")
                return
            }
            #expect(staged.release.number == 2 && client.currentRelease == held)
            #expect(SyncTests.contents(folder, "doc.txt") == nil, "the folder changed before the signal")
            let pending = try updater.applyPendingAtLaunch()
            #expect(pending == nil, "applyOnSignal applied at launch")

            // The next check finds it staged still, and applies nothing.
            #expect(await waits.next() == Self.interval)
            clock.advance(by: Self.interval)
            let again = await Self.states(&states, until: Self.isReady)
            #expect(again.first == .checking && again.contains { $0 == .applying || $0 == .upToDate(staged.release) } == false, "\(again)")
            guard case .ready(let still) = again.last else {
                Issue.record("\(again)")
                return
            }
            #expect(still.release == staged.release && client.currentRelease == held)

            let applied = try await updater.applyNow()
            #expect(applied == staged.release)
            #expect(await states.next() == .applying)
            #expect(await states.next() == .upToDate(staged.release))
            #expect(SyncTests.contents(folder, "doc.txt") == Self.text)
            running.cancel()
            await running.value
        }
    }

    @Test("applyAtNextLaunch: downloaded and ready; a new updater's launch call applies it, once", .timeLimit(.minutes(10)))
    func applyAtNextLaunch() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            try await server.publish([("doc.txt", Self.text)])
            let clock = ManualClock()
            let first = DepotUpdater(client: client, configuration: Self.configuration(.applyAtNextLaunch, clock: clock))
            guard case .ready(let staged) = await first.checkNow() else {
                Issue.record("\(first.state)")
                return
            }
            #expect(SyncTests.contents(folder, "doc.txt") == nil && client.currentRelease?.number == 1)

            // The next launch: a new client and updater of the folder.
            let relaunched = DepotClient(server: client.server, directory: folder)
            let updater = DepotUpdater(client: relaunched, configuration: Self.configuration(.applyAtNextLaunch, clock: clock))
            #expect(updater.state == .ready(staged))
            #expect(try updater.applyPendingAtLaunch() == staged.release)
            #expect(updater.state == .upToDate(staged.release))
            #expect(SyncTests.contents(folder, "doc.txt") == Self.text)
            #expect(try updater.applyPendingAtLaunch() == nil)
        }
    }

    @Test("applyImmediately: a check downloads and applies; an up-to-date check changes nothing", .timeLimit(.minutes(10)))
    func applyImmediately() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            try await server.publish([("doc.txt", Self.text)])
            let updater = DepotUpdater(client: client, configuration: Self.configuration(.applyImmediately, clock: ManualClock()))
            guard case .upToDate(let release) = await updater.checkNow() else {
                Issue.record("\(updater.state)")
                return
            }
            #expect(release.number == 2 && client.currentRelease == release && client.stagedUpdate == nil)
            #expect(SyncTests.contents(folder, "doc.txt") == Self.text)
            #expect(await updater.checkNow() == .upToDate(release))
        }
    }

    @Test("a release over the client's budget is not downloaded: failed, over budget, nothing staged", .timeLimit(.minutes(10)))
    func overBudget() async throws {
        var configuration = DepotClient.Configuration()
        configuration.maximumTransferBytes = 1000
        try await SyncStepsTests.withReleaseOne(configuration: configuration) { server, folder, client in
            try await server.publish([("big.bin", SyncStepsTests.large)])
            let updater = DepotUpdater(client: client, configuration: Self.configuration(.applyImmediately, clock: ManualClock()))
            guard case .failed(let error) = await updater.checkNow() else {
                Issue.record("\(updater.state)")
                return
            }
            #expect(error.code == .overBudget)
            #expect(client.stagedUpdate == nil && client.currentRelease?.number == 1)
        }
    }

    @Test(
        "a successful check is recorded in the folder, at the updater's time, for the next launch's schedule; a failed one is not",
        .timeLimit(.minutes(10))
    )
    func checkRecorded() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            let stamp = folder.appendingPathComponent(".depot/updater.json")
            var configuration = Self.configuration(.applyOnSignal, clock: ManualClock())
            configuration.now = { Date(timeIntervalSince1970: 1_800_000_000) }
            let updater = DepotUpdater(client: client, configuration: configuration)
            let held = try #require(client.currentRelease)
            #expect(await updater.checkNow() == .upToDate(held))
            let recorded = try String(contentsOf: stamp, encoding: .utf8)
            #expect(recorded == #"{"checkedAt":1800000000}"#)

            configuration.now = { Date(timeIntervalSince1970: 1_900_000_000) }
            let down = DepotClient(server: URL(string: "http://127.0.0.1:1/")!, directory: folder)
            guard case .failed = await DepotUpdater(client: down, configuration: configuration).checkNow() else {
                Issue.record("a check of a server that is down did not fail")
                return
            }
            let kept = try String(contentsOf: stamp, encoding: .utf8)
            #expect(kept == #"{"checkedAt":1800000000}"#)
            _ = server
        }
    }

    @Test("reportHealthy is the client's report(.healthy): kept in .depot/ for the report server", .timeLimit(.minutes(10)))
    func reportHealthy() async throws {
        try await SyncStepsTests.withReleaseOne(configuration: .init(sendsReports: true)) { server, folder, client in
            // The report server unreachable: the report waits in the folder, where the test reads it.
            let offline = DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: folder, configuration: .init(sendsReports: true))
            let updater = DepotUpdater(client: offline, configuration: Self.configuration(.applyOnSignal, clock: ManualClock()))
            try await updater.reportHealthy()
            let queued = String(decoding: try Data(contentsOf: folder.appendingPathComponent(".depot/reports.json")), as: UTF8.self)
            #expect(queued.contains("healthy"), "\(queued)")
        }
    }
}
