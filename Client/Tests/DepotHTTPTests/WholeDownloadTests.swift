import DepotFixtures
import DepotHTTP
import DepotManifest
import Testing

/// `ReleaseEntry.download(decoding:)`: the one rule of a file's whole download, which a
/// client's plan and a pack's members (gzip alone) both follow.
@Suite("A file's whole download")
struct WholeDownloadTests {
    static func entry(gzip: Int64?, brotli: Int64?, zstd: Int64?) -> ReleaseEntry {
        func variant(_ size: Int64?, _ digit: Character) -> ReleaseEntry.Variant? {
            size.map { ReleaseEntry.Variant(size: $0, sha256: Fixture.digest(repeating: digit)) }
        }
        return Fixture.entry("f", size: 1000, gzip: variant(gzip, "c"), brotli: variant(brotli, "b"), zstd: variant(zstd, "d"))
    }

    /// (gzip, brotli, zstd sizes; what the client decodes) → (coding, bytes, URL suffix).
    static let cases: [(Int64?, Int64?, Int64?, Set<ContentCoding>, ContentCoding, Int64, String)] = [
        (600, 430, 450, [.gzip, .br, .zstd], .br, 430, ".br"),
        (600, 430, 450, [.gzip, .zstd], .zstd, 450, ".zst"),
        (600, 430, 450, [.gzip], .gzip, 600, ".gz"),
        (600, 430, 450, [], .identity, 1000, ""),
        (600, 450, 450, [.gzip, .br, .zstd], .br, 450, ".br"),  // a tie: br first, as the server negotiates
        (nil, 990, nil, [.gzip, .br], .br, 990, ".br"),
        (1000, nil, nil, [.gzip], .identity, 1000, ""),  // not smaller than the content: the content
        (nil, nil, nil, [.gzip, .br, .zstd], .identity, 1000, ""),
    ]

    @Test("the smallest variant the client decodes, smaller than the content; of equal sizes br, zstd, gzip", arguments: cases.indices)
    func choice(index: Int) throws {
        let (gzip, brotli, zstd, decodable, coding, size, suffix) = Self.cases[index]
        let download = Self.entry(gzip: gzip, brotli: brotli, zstd: zstd).download(decoding: decodable)
        #expect(download.coding == coding)
        #expect(download.size == size)
        #expect(download.content == String(repeating: "a", count: 64))
        #expect(try download.object.path == "blobs/" + String(repeating: "a", count: 64) + suffix)
    }

    @Test("a pack carries gzip or the content, whatever other variants the entry lists")
    func packs() {
        let entry = Self.entry(gzip: 600, brotli: 430, zstd: 450)
        #expect(entry.downloadsGzip && entry.wholeLength == 600)
    }

    @Test("a variant's digest that is not 64 lower-case hex digits, or a negative size, makes the entry unusable")
    func validation() {
        var entry = Self.entry(gzip: 600, brotli: 430, zstd: 450)
        #expect(entry.problem == nil)
        entry.brotli = ReleaseEntry.Variant(size: 10, sha256: "../../etc/passwd")
        #expect(entry.problem?.contains("brotli sha256") == true)
        entry.brotli = nil
        entry.zstd = ReleaseEntry.Variant(size: -1, sha256: String(repeating: "d", count: 64))
        #expect(entry.problem?.contains("negative") == true)
    }
}
