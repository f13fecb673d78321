import DepotHTTP
import DepotStore
import DepotTestFixtures
import Foundation
import NIOCore
import Testing
import _NIOFileSystem

/// Collection against a publish under way: a publish makes its new content's block index and
/// patches, then commits the version. A collection between the two must not take them (it did:
/// at the default interval, 2 of 6 releases of 20 MB files lost their block index).
@Suite("Collection during a publish")
struct CollectionRaceTests {
    /// Where the new content stands when collection runs.
    enum Stage: String, CaseIterable, CustomTestStringConvertible {
        /// Stored and held by its writer, which has made its index and patch, not yet committed.
        case heldBeforeCommit
        /// Recorded as an upload (`PUT /v1/blobs`) that a later commit will list; not held.
        case recordedUpload
        /// Committed: a version has it.
        case committed
        /// Its writer gave up (a refused commit): nothing has it.
        case abandoned

        var testDescription: String { rawValue }

        /// Whether its block index and its patch survive collection.
        var kept: Bool { self != .abandoned }
    }

    static let now = HTTPDate(secondsSince1970: 1_800_000_000)

    @Test("the index and patch a publish made before its commit stay until it commits or gives up", arguments: Stage.allCases)
    func collectionSparesUncommitted(stage: Stage) async throws {
        try await withTemporaryDirectory { folder in
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.path))
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let old = try await store.ingest([ByteBuffer(string: "version one\n")].async)
            store.release(old.sha256)
            _ = try await ReleaseStore(catalog).commit(
                .init(channel: "stable", files: [.init(path: "db", blob: old, contentType: "text/plain")], now: Self.now, keepVersions: 5)
            )
            // The new content, held as ingest returns it, and what a publish makes of it first.
            let new = try await store.ingest([ByteBuffer(string: "version two\n")].async)
            let index = BlockIndexRecord(sha256: new.sha256, indexSHA256: old.sha256, indexSize: 1, packedSHA256: old.sha256, packedSize: 1)
            try await BlobIndex(catalog).recordBlockIndex(index, now: Self.now)
            try await BlobIndex(catalog).recordDelta(from: old.sha256, to: new.sha256, blob: nil, now: Self.now)
            switch stage {
            case .heldBeforeCommit: break
            case .recordedUpload:
                try await BlobIndex(catalog).recordUpload(new, now: Self.now)
                store.release(new.sha256)
            case .committed:
                _ = try await ReleaseStore(catalog).commit(
                    .init(channel: "stable", files: [.init(path: "db", blob: new, contentType: "text/plain")], now: Self.now, keepVersions: 5)
                )
                store.release(new.sha256)
            case .abandoned:
                store.release(new.sha256)
            }
            _ = try await Maintenance(catalog).removeRetired(
                before: HTTPDate(secondsSince1970: Self.now.secondsSince1970 + 86400),
                sparingHeldBy: store
            )
            #expect((try await BlobIndex(catalog).blockIndex(of: new.sha256) != nil) == stage.kept)
            #expect((try await BlobIndex(catalog).patchSources(path: "db", target: new.sha256, distances: [1]).isEmpty) == stage.kept)
        }
    }
}
