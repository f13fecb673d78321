import DepotHTTP
import DepotStore
import DepotTestFixtures
import Foundation
import Testing
import _NIOFileSystem

/// Retention per channel (issue 57, defect 3): commits to one channel never take what another
/// channel's signed document names (its fallbacks) or what its rollback can go back to. Before,
/// versions and releases were counted over all channels: 5 commits to beta collected stable's
/// previous release's files (rollback: 410), 21 removed the release stable's document names as
/// the fallback for older apps.
@Suite("Retention per channel")
struct ChannelRetentionTests {
    static let now = ReleaseCatalogTests.now
    static let later = HTTPDate(secondsSince1970: now.secondsSince1970 + 86400)

    /// Commits `text` as the path `a` to `channel`, needing app version `minimum`.
    static func commit(_ catalog: Catalog, _ channel: String, _ text: String, minimum: String? = nil) async throws -> ReleaseSummary {
        var commit = ReleaseStore.ReleaseCommit(channel: channel, files: [ReleaseCatalogTests.file("a", text)], now: now, keepVersions: 5)
        commit.minimumClientVersion = minimum
        return try #require(try await ReleaseStore(catalog).commit(commit).release)
    }

    /// One full collection, as the server runs it, long after every retirement.
    static func collect(_ catalog: Catalog, keeping: Int, folder: URL) async throws {
        let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
        _ = try await Maintenance(catalog).collectReleases(keeping: keeping, now: now, before: later)
        _ = try await Maintenance(catalog).removeRetired(before: later, sparingHeldBy: store)
    }

    @Test("5 commits to beta leave stable's rollback target, its versions and their blobs")
    func betaCommitsKeepStableRollback() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let one = try await Self.commit(catalog, "stable", "stable one")
            _ = try await Self.commit(catalog, "stable", "stable two")
            for index in 1...5 { _ = try await Self.commit(catalog, "beta", "beta \(index)") }
            try await Self.collect(catalog, keeping: 20, folder: folder)

            #expect(try await Maintenance(catalog).referencedBlobs().contains(ReleaseCatalogTests.blob("stable one").sha256))
            #expect(try await ReleaseStore(catalog).rollbackTarget(of: "stable")?.id == one.id)
            let move = try await ReleaseStore(catalog).rollback("stable", now: Self.later)
            #expect(move.to.id == one.id)
            #expect(try await ReleaseStore(catalog).liveVersion(of: "a")?.sha256 == ReleaseCatalogTests.blob("stable one").sha256)
        }
    }

    @Test("21 commits to beta leave the release stable's document names as the fallback for older apps")
    func betaCommitsKeepStableFallback() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let old = try await Self.commit(catalog, "stable", "for old apps")
            _ = try await Self.commit(catalog, "stable", "needs 2 (a)", minimum: "2.0")
            _ = try await Self.commit(catalog, "stable", "needs 2 (b)", minimum: "2.0")
            let stable = try #require(try await ReleaseStore(catalog).channels().first { $0.name == "stable" })
            #expect(try await ReleaseStore(catalog).fallbacks(of: stable).map(\.id) == [old.id])
            for index in 1...21 { _ = try await Self.commit(catalog, "beta", "beta \(index)") }
            // Keeping 2: stable's history keeps releases 3 and 2; only the fallback rule keeps 1.
            try await Self.collect(catalog, keeping: 2, folder: folder)

            #expect(try await ReleaseStore(catalog).releaseDocument(id: old.id) != nil)
            #expect(try await ReleaseStore(catalog).fallbacks(of: stable).map(\.id) == [old.id])
            #expect(try await Maintenance(catalog).referencedBlobs().contains(ReleaseCatalogTests.blob("for old apps").sha256))
            #expect(try await ReleaseStore(catalog).rollbackTarget(of: "stable")?.number == 2)
            // Beta keeps its own 2, whatever stable does.
            let beta = try await ReleaseStore(catalog).releases().filter { $0.number > 3 }.map(\.number)
            #expect(beta == [24, 23])
        }
    }
}
