import DepotHTTP
import DepotPolicy
import DepotStore
import DepotTestFixtures
import Foundation
import Testing

/// Staged rollouts in the catalog (the gate's table is DepotPolicyTests'): each move as one transaction that
/// re-signs (raises the serial), moves only from the step it read, survives a reopen, and keeps
/// what clients of the rollout fetch.
@Suite("Rollouts in the catalog")
struct RolloutCatalogTests {
    typealias Fixture = ReleaseCatalogTests
    static let now = Fixture.now
    static func plan(
        steps: [Int] = [10, 50, 100],
        every: Int64 = 60,
        rate: Double = 0.02,
        minReports: Int64 = 200,
        autoRollback: Bool = true
    ) -> RolloutPlan {
        try! RolloutPlan(steps: steps, everySeconds: every, maxFailureRate: rate, minReports: minReports, autoRollback: autoRollback)
    }

    @Test("a plan's steps rise from 1 to 100 and end at 100", arguments: [[0, 100], [10, 5, 100], [10, 50], [], [10, 10, 100], [50, 101]])
    func badPlans(steps: [Int]) {
        #expect(throws: CatalogError.self) {
            try RolloutPlan(steps: steps, everySeconds: 60, maxFailureRate: 0.02, minReports: 0, autoRollback: true)
        }
    }

    /// Stable on release 1 (a.txt one), release 2 (a.txt two, b.txt) made on beta.
    static func withTwoReleases(_ body: (Catalog, _ one: ReleaseSummary, _ two: ReleaseSummary, _ folder: URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let one = try #require(try await Fixture.commit(catalog, [Fixture.file("a.txt", "one")]).release)
            let two = try #require(
                try await Fixture.commit(catalog, channel: "beta", [Fixture.file("a.txt", "two"), Fixture.file("b.txt", "b")], replace: true).release
            )
            _ = try await Fixture.commit(catalog, channel: "beta", [Fixture.file("a.txt", "one")])
            try await body(catalog, one, two, folder)
        }
    }

    static func stable(_ catalog: Catalog) async throws -> ChannelState {
        try #require(try await ReleaseStore(catalog).channels().first { $0.name == "stable" })
    }

    @Test("a start names the rollout in the channel's state, raises its serial, and refuses what would change its base")
    func start() async throws {
        try await Self.withTwoReleases { catalog, one, two, _ in
            let before = try await Self.stable(catalog).serial
            let rollout = try await RolloutStore(catalog).startRollout(
                String(two.number),
                to: "stable",
                plan: Self.plan(),
                salt: "5a17",
                now: Self.now
            )
            #expect(rollout.percent == 10 && rollout.state == .running && rollout.base == one.id && rollout.release == two.id)
            let state = try await Self.stable(catalog)
            #expect(state.release.id == one.id, "the channel keeps pointing at the base")
            #expect(state.rollout?.release == two.id && state.rollout?.salt == "5a17" && state.serial == before + 1)
            #expect(try await ReleaseStore(catalog).liveVersion(of: "a.txt")?.sha256 == Fixture.blob("one").sha256, "/files/ serves the base")

            let refusals: [(String, () async throws -> Void)] = [
                (
                    "a second start",
                    { _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "1", now: Self.now) }
                ),
                ("a publish", { _ = try await Fixture.commit(catalog, [Fixture.file("c.txt", "c")]) }),
                ("a promote", { _ = try await ReleaseStore(catalog).promote(String(two.number), to: "stable", now: Self.now) }),
            ]
            for (name, refused) in refusals {
                let error = await #expect(throws: CatalogError.self, "\(name)") { try await refused() }
                #expect(error?.code == .conflict, "\(name): \(error?.message ?? "")")
            }
            #expect(try await Self.stable(catalog).serial == before + 1, "refusals change nothing")
            let unknown = await #expect(throws: CatalogError.self) {
                _ = try await RolloutStore(catalog).startRollout("99", to: "beta", plan: Self.plan(), salt: "1", now: Self.now)
            }
            #expect(unknown?.code == .notFound)
        }
    }

    @Test("a rollout's own minimum of gate networks is kept with it, across a reopen; fewer than 1 is refused")
    func minNetworks() async throws {
        #expect(throws: CatalogError.self) {
            try RolloutPlan(steps: [10, 100], everySeconds: 60, maxFailureRate: 0.02, minReports: 0, autoRollback: true, minNetworks: 0)
        }
        try await Self.withTwoReleases { catalog, _, two, folder in
            let plan = try RolloutPlan(steps: [10, 100], everySeconds: 60, maxFailureRate: 0.02, minReports: 3, autoRollback: true, minNetworks: 1)
            let started = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: plan, salt: "s", now: Self.now)
            #expect(started.plan.minNetworks == 1 && started.plan.gateNetworks(serverMinimum: 3).count == 1)
            let reopened = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            #expect(try await RolloutStore(reopened).rollout(of: "stable")?.plan == plan)
        }
    }

    @Test("a step moves only from the state read: applied twice, after a pause and resume, or after a reopen, it moves once")
    func compareAndSet() async throws {
        try await Self.withTwoReleases { catalog, _, two, folder in
            let rollout = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            let advance = RolloutGate.Decision.advance(reason: "test")
            let later = HTTPDate(secondsSince1970: Self.now.secondsSince1970 + 60)
            #expect(try await RolloutStore(catalog).applyGate(advance, to: rollout, now: later)?.move == .advanced(50))
            #expect(try await RolloutStore(catalog).applyGate(advance, to: rollout, now: later) == nil, "a second tick that read step 0")
            // A pause and resume between a tick's read and its move: the step began again, the
            // decision was made on reports of the step before.
            let fifty = try #require(try await RolloutStore(catalog).rollout(of: "stable"))
            _ = try await RolloutStore(catalog).changeRollout(of: "stable", .pause, now: later)
            let resumedAt = HTTPDate(secondsSince1970: later.secondsSince1970 + 5)
            _ = try await RolloutStore(catalog).changeRollout(of: "stable", .resume, now: resumedAt)
            #expect(try await RolloutStore(catalog).applyGate(advance, to: fifty, now: resumedAt) == nil, "a decision on a step that began again")
            let serial = try await Self.stable(catalog).serial

            // A restart: the catalog opened again from its file holds the same rollout.
            let reopened = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let held = try #require(try await RolloutStore(reopened).rollout(of: "stable"))
            #expect(held.step == 1 && held.percent == 50 && held.stepStartedAt == later.secondsSince1970 + 5 && held.state == .running)
            #expect(try await RolloutStore(reopened).applyGate(advance, to: rollout, now: later) == nil)
            #expect(try await Self.stable(reopened).serial == serial)

            // The last step completes: the channel points to the release, the document has no rollout.
            let done = try #require(try await RolloutStore(reopened).applyGate(advance, to: held, now: later))
            #expect(done.move == .completed && Set(done.changedPaths) == ["a.txt", "b.txt"])
            let state = try await Self.stable(reopened)
            #expect(state.release.id == two.id && state.rollout == nil && state.serial == serial + 1)
            #expect(try await ReleaseStore(reopened).liveVersion(of: "a.txt")?.sha256 == Fixture.blob("two").sha256)
            #expect(try await RolloutStore(reopened).rollout(of: "stable")?.state == .completed)
            // After a completed rollout the channel's rollback goes to the release before it.
            #expect(try await ReleaseStore(reopened).rollback("stable", now: later).to.id != two.id)
        }
    }

    @Test("a failed gate halts, or with auto-rollback ends the rollout on the base; a channel rollback rolls a live rollout back")
    func haltAndRollback() async throws {
        try await Self.withTwoReleases { catalog, one, two, _ in
            let halting = try await RolloutStore(catalog).startRollout(
                two.id,
                to: "stable",
                plan: Self.plan(autoRollback: false),
                salt: "s",
                now: Self.now
            )
            let halt = RolloutGate.Decision.halt(reason: "30% failed")
            #expect(try await RolloutStore(catalog).applyGate(halt, to: halting, now: Self.now)?.move == .halted)
            #expect(try await Self.stable(catalog).rollout?.state == .halted, "a halted rollout stays in the document, frozen")
            #expect(try await RolloutStore(catalog).runningRollouts().isEmpty, "the scheduler leaves it alone")
            #expect(try await RolloutStore(catalog).changeRollout(of: "stable", .resume, now: Self.now).state == .running)
            let serial = try await Self.stable(catalog).serial
            let move = try await ReleaseStore(catalog).rollback("stable", now: Self.now)
            #expect(move.to.id == one.id)
            let state = try await Self.stable(catalog)
            #expect(state.release.id == one.id && state.rollout == nil && state.serial == serial + 1)
            #expect(try await RolloutStore(catalog).rollout(of: "stable")?.state == .rolledBack)

            let automatic = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "t", now: Self.now)
            #expect(try await RolloutStore(catalog).applyGate(halt, to: automatic, now: Self.now)?.move == .rolledBack)
            #expect(try await Self.stable(catalog).rollout == nil)
            #expect(try await RolloutStore(catalog).rollout(of: "stable")?.reason.contains("30% failed") == true)
        }
    }

    @Test("retention keeps the versions a live rollout's release holds")
    func retentionKeepsRolloutVersions() async throws {
        try await Self.withTwoReleases { catalog, _, two, _ in
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            // beta moves on, keeping one version a path: a.txt "two" is no channel's any more.
            for text in ["three", "four", "five"] {
                _ = try await ReleaseStore(catalog).commit(
                    .init(channel: "beta", files: [Fixture.file("a.txt", text)], now: Self.now, keepVersions: 1)
                )
            }
            let history = try await ReleaseStore(catalog).fileHistory(path: "a.txt")
            let rolledOut = try #require(history.first { $0.version.sha256 == Fixture.blob("two").sha256 })
            #expect(rolledOut.version.retiredAt == nil, "the rollout's version of a.txt is kept")
            #expect(history.contains { $0.version.retiredAt != nil }, "other old versions are retired")
        }
    }

    @Test("a file's history lists each patch once, from the newest earlier version with its base's content")
    func fileHistoryWithRepeatedContent() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            // a.txt: one, two, one, two: contents published twice.
            for text in ["one", "two", "one", "two"] { _ = try await Fixture.commit(catalog, [Fixture.file("a.txt", text)]) }
            let patch = Fixture.blob("patch from one to two")
            try await BlobIndex(catalog).recordDelta(from: Fixture.blob("one").sha256, to: Fixture.blob("two").sha256, blob: patch, now: Self.now)
            let history = try await ReleaseStore(catalog).fileHistory(path: "a.txt")
            #expect(history.map(\.version.version) == [4, 3, 2, 1])
            // v4 (two): one patch, from v3 (one), not a second from v1.
            #expect(history.map { $0.patches.map(\.fromVersion) } == [[3], [], [1], []])
        }
    }

    static let limits = ReportLedger.ReportLimits(installsPerNetwork: 5, installsPerPeriod: 100)

    static func install(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n % 256), count: 31) + [UInt8(n / 256)] }

    @Test("reports count toward the live rollout of their release, each install once per kind; other releases count nothing")
    func reports() async throws {
        try await Self.withTwoReleases { catalog, one, two, _ in
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            let started = Self.now.secondsSince1970
            let at = { (network: UInt8) in [UInt8]([4, 10, 0, network]) }
            var reports = (0..<1000).map { _ in
                ReportLedger.Report(release: two.id, install: Self.install(1), kind: .applied, network: at(1), receivedAt: started)
            }
            reports += [
                .init(release: two.id, install: Self.install(1), kind: .healthy, network: at(1), receivedAt: started),
                .init(release: two.id, install: Self.install(2), kind: .failed, network: at(2), receivedAt: started),
                .init(release: two.id, install: Self.install(2), kind: .failed, network: at(2), receivedAt: started),
                .init(release: one.id, install: Self.install(3), kind: .failed, network: at(3), receivedAt: started),
                .init(release: String(repeating: "0", count: 64), install: Self.install(3), kind: .failed, network: at(3), receivedAt: started),
            ]
            #expect(try await ReportLedger(catalog).record(reports, limits: Self.limits, now: Self.now) == 3)
            #expect(try await ReportLedger(catalog).record(reports, limits: Self.limits, now: Self.now) == 0, "sent again, nothing counts twice")
            let rollout = try #require(try await RolloutStore(catalog).rollout(of: "stable"))
            #expect(
                try await ReportLedger(catalog).gateEvidence(of: rollout)
                    == GateEvidence(counts: .init(applied: 1, failed: 1, healthy: 1), networks: 2, failingNetworks: 1)
            )
        }
    }

    @Test("failure reasons: counted once an install, as the failure is; at most 20 kept a rollout, the rest under one")
    func failureReasons() async throws {
        try await Self.withTwoReleases { catalog, _, two, _ in
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            let started = Self.now.secondsSince1970
            func failure(_ install: Int, _ reason: String) -> ReportLedger.Report {
                .init(
                    release: two.id,
                    install: Self.install(install),
                    kind: .failed,
                    network: [10, 0, 0, UInt8(install % 5)],
                    receivedAt: started,
                    reason: reason
                )
            }
            // Three installs say the database is locked (one of them twice), 40 invent a reason each.
            var reports = [failure(1, "database is locked\nat line 3"), failure(1, "database is locked"), failure(2, "  database is locked")]
            reports += [failure(3, "database is locked")] + (10..<50).map { failure($0, "invented \($0)") }
            _ = try await ReportLedger(catalog).record(reports, limits: .init(installsPerNetwork: 100, installsPerPeriod: 100), now: Self.now)
            let rollout = try #require(try await RolloutStore(catalog).rollout(of: "stable"))
            let top = try await ReportLedger(catalog).failureReasons(of: rollout, limit: 100)
            #expect(top.first?.reason == "(other reasons)" && top.first?.installs == 40 - 18)
            #expect(top.contains { $0.reason == "database is locked" && $0.installs == 3 })
            #expect(top.count == 20, "19 reasons and the rest: \(top.count)")
        }
    }

    @Test("what one network stores and weighs is bounded: 5 installs a network, 100 a step, however many it invents")
    func networkLimits() async throws {
        try await Self.withTwoReleases { catalog, _, two, _ in
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            let flood = (0..<10_000).map { n in
                ReportLedger.Report(
                    release: two.id,
                    install: Self.install(n),
                    kind: .failed,
                    network: [4, 10, 0, 1],
                    receivedAt: Self.now.secondsSince1970
                )
            }
            #expect(try await ReportLedger(catalog).record(flood, limits: Self.limits, now: Self.now) == 5)
            let rollout = try #require(try await RolloutStore(catalog).rollout(of: "stable"))
            #expect(
                try await ReportLedger(catalog).gateEvidence(of: rollout) == GateEvidence(counts: .init(failed: 5), networks: 1, failingNetworks: 1)
            )
            // From 1,000 networks: the step keeps 100 installs.
            let spread = (0..<1000).map { n in
                ReportLedger.Report(
                    release: two.id,
                    install: Self.install(20_000 + n),
                    kind: .applied,
                    network: [4, 10, UInt8(n / 256), UInt8(n % 256)],
                    receivedAt: Self.now.secondsSince1970
                )
            }
            #expect(try await ReportLedger(catalog).record(spread, limits: Self.limits, now: Self.now) == 95)
            #expect(
                try await ReportLedger(catalog).gateEvidence(of: rollout)
                    == GateEvidence(counts: .init(applied: 95, failed: 5), networks: 96, failingNetworks: 1)
            )
        }
    }

    @Test("a report received before its rollout's step began counts toward no step")
    func reportBeforeStep() async throws {
        try await Self.withTwoReleases { catalog, _, two, _ in
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "stable", plan: Self.plan(), salt: "s", now: Self.now)
            let early = ReportLedger.Report(
                release: two.id,
                install: Self.install(1),
                kind: .failed,
                network: [4, 1, 1, 1],
                receivedAt: Self.now.secondsSince1970 - 1
            )
            #expect(try await ReportLedger(catalog).record([early], limits: Self.limits, now: Self.now) == 0)
        }
    }
}
