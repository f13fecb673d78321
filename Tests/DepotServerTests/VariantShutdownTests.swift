import DepotCodecs
import DepotStore
import DepotTestFixtures
import Foundation
import SystemPackage
import Testing

@testable import DepotServer

/// A shutdown during a background encoding (found by the attack on issue 56's surfaces: SIGTERM
/// waited 81 s for a 35 MB file's zstd, then left its temporary file for the next start to call
/// a leftover): the encoding stops at the next chunk, and its temporary file goes.
@Suite("Variants: a shutdown mid-encoding")
struct VariantShutdownTests {
    @Test("the encoding stops at the chunk after it is told to, and the temporary file is removed by a synchronous call")
    func stopsAtTheNextChunk() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("content")
            let content = Data(repeating: 0x61, count: 3 * VariantMaker.chunkSize + 10)
            try content.write(to: source)
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.appendingPathComponent("data").path))
            let output = store.temporaryPath(extension: "zst")
            var chunks = 0
            #expect(throws: CancellationError.self) {
                try VariantMaker.encode(
                    FilePath(source.path),
                    size: Int64(content.count),
                    with: try Zstd.Encoder(settings: .init(level: 3, longWindow: nil), size: Int64(content.count)),
                    into: output,
                    of: store
                ) {
                    chunks += 1
                    return chunks > 1
                }
            }
            #expect(chunks == 2, "one chunk encoded, then stopped")
            #expect(FileManager.default.fileExists(atPath: output.string))
            store.removeTemporary(output)
            #expect(!FileManager.default.fileExists(atPath: output.string))
        }
    }
}
