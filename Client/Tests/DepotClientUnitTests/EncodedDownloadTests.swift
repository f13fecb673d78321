import DepotCodecs
import DepotFixtures
import DepotHTTP
import DepotManifest
import Foundation
import Testing

@testable import DepotClient

/// A whole download in brotli or zstd, as a hostile server or mirror may send it: checked as it
/// is decoded, and refused at the first byte past the entry's size, however much it would make.
@Suite("Encoded downloads")
struct EncodedDownloadTests {
    static let content = Array(Fixture.catalogRows.prefix(100_000))

    static func entry(size: Int, sha256: String) -> ReleaseEntry {
        Fixture.entry("catalog.db", size: Int64(size), sha256: sha256)
    }

    static func encode(_ bytes: [UInt8], _ coding: ContentCoding) throws -> Data {
        Data(
            coding == .br ? try Brotli.compress(bytes, settings: .init(quality: 5, window: 20)) : try Zstd.compress(bytes, settings: .init(level: 3))
        )
    }

    @Test(
        "decoded and checked: the content staged; a bomb refused at the entry's size; garbage and a cut stream refused",
        arguments: [ContentCoding.br, .zstd]
    )
    func decoded(coding: ContentCoding) async throws {
        let entry = Self.entry(size: Self.content.count, sha256: Fixture.sha256(Self.content))
        try await withTemporaryDirectory { folder in
            let staged = try FolderFile.at(folder.appendingPathComponent("staged"), creating: false)
            try StagedContent.stage(try Self.encode(Self.content, coding), coding: coding, entry: entry, to: staged)
            #expect(try Data(contentsOf: folder.appendingPathComponent("staged")) == Data(Self.content))

            // 64 MiB of zeros, a few kilobytes encoded, for an entry of 100,000 bytes: what is
            // written stops at the entry's size.
            let bomb = try Self.encode([UInt8](repeating: 0, count: 64 << 20), coding)
            #expect(bomb.count < 100_000)
            var pending: Data? = bomb
            var written = 0
            #expect(throws: SyncError.self) {
                try StagedContent.decodeChecked(
                    coding: coding,
                    entry: entry,
                    chunks: {
                        defer { pending = nil }
                        return pending
                    }
                ) { written += $0.count }
            }
            #expect(written <= Self.content.count)

            let encoded = try Self.encode(Self.content, coding)
            for (why, bytes) in [("garbage", Fixture.pseudoRandom(count: 2000, seed: 3)), ("cut", encoded.prefix(encoded.count / 2))] {
                #expect(throws: SyncError.self, "\(why)") { try StagedContent.stage(Data(bytes), coding: coding, entry: entry, to: staged) }
            }
        }
    }
}
