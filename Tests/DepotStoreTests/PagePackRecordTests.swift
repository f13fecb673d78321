import DepotHTTP
import DepotStore
import DepotTestFixtures
import Foundation
import Testing

/// A page's kept packs (``BlobIndex/recordPagePack(_:now:)``, migration 0015): their blobs are
/// referenced while the page is stored, so collection keeps them, and go with the page, so none
/// is leaked.
@Suite("Page packs in the catalog")
struct PagePackRecordTests {
    static let packBlob = String(repeating: "b", count: 64)

    /// The pages of release `summary`.
    static func pages(_ catalog: Catalog, _ summary: ReleaseSummary) async throws -> [String] {
        let document = try #require(try await ReleaseStore(catalog).releaseDocument(id: summary.id))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document.bytes)) as? [String: Any])
        return try #require(json["pages"] as? [String])
    }

    @Test("a pack's blob is referenced while its page is stored, and not once retention removed the page")
    func keptWithItsPage() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let one = try await ChannelRetentionTests.commit(catalog, "stable", "one")
            let page = try #require(try await Self.pages(catalog, one).first)
            let record = PagePackRecord(page: page, kind: .br, stored: .init(sha256: Self.packBlob, size: 10))
            #expect(try await BlobIndex(catalog).recordPagePack(record, now: ChannelRetentionTests.now))
            #expect(
                try await BlobIndex(catalog).recordPagePack(PagePackRecord(page: page, kind: .identity, stored: nil), now: ChannelRetentionTests.now)
            )
            #expect(try await BlobIndex(catalog).pagePack(page: page, kind: .br) == record)
            #expect(try await BlobIndex(catalog).pagePack(page: page, kind: .identity)?.stored == nil)

            try await ChannelRetentionTests.collect(catalog, keeping: 20, folder: folder)
            #expect(try await Maintenance(catalog).referencedBlobs().contains(Self.packBlob), "kept while the page is stored")

            _ = try await ChannelRetentionTests.commit(catalog, "stable", "two")
            try await ChannelRetentionTests.collect(catalog, keeping: 1, folder: folder)
            #expect(try await ReleaseStore(catalog).pageDocument(sha256: page) == nil, "release 1 and its page are gone")
            #expect(try await BlobIndex(catalog).pagePack(page: page, kind: .br) == nil)
            #expect(try await !Maintenance(catalog).referencedBlobs().contains(Self.packBlob), "collected with its page: not leaked")
        }
    }

    @Test("a pack of a page no longer stored is not recorded")
    func noPage() async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path)
            let record = PagePackRecord(page: String(repeating: "c", count: 64), kind: .br, stored: .init(sha256: Self.packBlob, size: 10))
            #expect(try await !BlobIndex(catalog).recordPagePack(record, now: ChannelRetentionTests.now))
            #expect(try await !Maintenance(catalog).referencedBlobs().contains(Self.packBlob))
        }
    }
}
