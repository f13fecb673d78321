import Crypto
import DepotHTTP
import DepotPolicy
import DepotStore
import DepotTestFixtures
import Foundation
import Testing

@testable import DepotServer

/// The overview's rollout cards as an operator reads them, from a real catalog.
@Suite("Dashboard overview")
struct DashboardOverviewTests {
    static let now = HTTPDate(secondsSince1970: 1_800_000_000)

    static func file(_ text: String) -> ReleaseStore.ReleaseFile {
        let bytes = Array(text.utf8)
        let blob = BlobRecord(
            sha256: Hex.string(SHA256.hash(data: bytes)),
            md5: Hex.string(Insecure.MD5.hash(data: bytes)),
            size: Int64(bytes.count),
            gzip: nil
        )
        return .init(path: "a.txt", blob: blob, contentType: "text/plain")
    }

    @Test("running rollouts come first, whatever their channel's name; a completed rollout the channel was rolled back from says so")
    func rolloutCards() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            func commit(_ channel: String, _ text: String) async throws -> ReleaseSummary {
                try #require(
                    try await ReleaseStore(catalog).commit(.init(channel: channel, files: [Self.file(text)], now: Self.now, keepVersions: 5)).release
                )
            }
            let one = try await commit("z-live", "one")
            let two = try await commit("a-old", "two")
            let plan = try RolloutPlan(steps: [50, 100], everySeconds: 60, maxFailureRate: 0.02, minReports: 0, autoRollback: true)
            let old = try await RolloutStore(catalog).startRollout(one.id, to: "a-old", plan: plan, salt: "s", now: Self.now)
            #expect(try await RolloutStore(catalog).applyGate(.advance(reason: "passed"), to: old, now: Self.now)?.move == .completed)
            _ = try await ReleaseStore(catalog).rollback("a-old", now: Self.now)
            _ = try await RolloutStore(catalog).startRollout(two.id, to: "z-live", plan: plan, salt: "t", now: Self.now)

            let data = DashboardData(catalog: catalog, traffic: TrafficHistory(), signer: ChannelSigner())
            let overview = try await data.overview(role: .byAddress)
            #expect(overview.rollouts.map(\.channel) == ["z-live", "a-old"], "the running rollout first")
            let page = try DashboardPage().overview(overview)
            #expect(page.contains("completed at 100%, then rolled back: the channel is on #2"))
            #expect(page.contains("running at 50%"))
        }
    }
}
