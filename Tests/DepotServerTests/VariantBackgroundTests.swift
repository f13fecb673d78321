import DepotCodecs
import DepotHTTP
import DepotManifest
import DepotStore
import DepotTestSupport
import Foundation
import Logging
import NIOCore
import Testing
import _NIOFileSystem

@testable import DepotServer

/// Brotli and zstd variants made in the background (issue 56): a sampled-out content costs no
/// encoding, the queue is bounded, and a release committed once they exist lists them.
@Suite("Variants: the background maker")
struct VariantBackgroundTests {
    static let quick = VariantConfiguration(brotli: .init(quality: 5, window: 20), zstd: .init(level: 3, longWindow: nil))

    /// A store, a catalog and a maker over them (not running), in a temporary folder.
    static func withMaker<Result>(
        maximumPending: Int = 1024,
        _ body: (VariantMaker, BlobStore, Catalog) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { folder in
            let logger = Logger(label: "test")
            let data = FilePath(folder.appendingPathComponent("data").path)
            let store = try await BlobStore.open(dataDirectory: data, logger: logger)
            let catalog = try Catalog(path: data.appending("catalog.sqlite").string)
            var variants = quick
            variants.maximumPending = maximumPending
            let maker = VariantMaker(blobs: BlobIndex(catalog), store: store, variants: variants, logger: logger)
            return try await body(maker, store, catalog)
        }
    }

    static func store(_ data: Data, in store: BlobStore) async throws -> BlobRecord {
        try await store.ingest(
            AsyncStream {
                $0.yield(ByteBuffer(bytes: Array(data)))
                $0.finish()
            }
        )
    }

    /// Runs `maker` while `body` does.
    static func running<Result: Sendable>(_ maker: VariantMaker, _ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await maker.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    @Test("an incompressible file gets no brotli or zstd attempt: recorded as sampled, never encoded")
    func incompressible() async throws {
        try await Self.withMaker { maker, store, catalog in
            let noise = try await Self.store(Fixture.pseudoRandom(count: 300_000, seed: 9), in: store)
            let text = try await Self.store(Fixture.catalogRows, in: store)
            #expect(noise.gzip == nil)
            try await Self.running(maker) {
                #expect(await maker.make(of: noise) == false)
                #expect(maker.done.encoded == 0 && maker.done.sampledOut == 1)
                let rows = try await BlobIndex(catalog).contentVariants(of: noise.sha256)
                #expect(Set(rows.map(\.coding)) == [.br, .zstd] && rows.allSatisfy { $0.stored == nil && $0.settings.hasPrefix("sampled:") })
                #expect(await maker.make(of: text) == true)
                #expect(maker.done.encoded == 2, "both encodings of the text, one after the other")
                let made = try await BlobIndex(catalog).contentVariants(of: text.sha256)
                for row in made {
                    let stored = try #require(row.stored)
                    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store.path(forSHA256: stored.sha256).string)))
                    let decoded =
                        row.coding == .br ? try Brotli.decompress(bytes, maximumBytes: 1 << 24) : try Zstd.decompress(bytes, maximumBytes: 1 << 24)
                    #expect(Data(decoded) == Fixture.catalogRows, "\(row.coding) streams back the content")
                }
            }
        }
    }

    // Hang guard: slowest seen 1.4 s under two busy loops (the whole test). The time limit is one too.
    @Test("the queue is bounded: past maximumPending a request is refused, one content is made at a time", .timeLimit(.minutes(10)))
    func bounded() async throws {
        try await Self.withMaker(maximumPending: 1) { maker, store, catalog in
            var blobs: [BlobRecord] = []
            for seed in 1...3 { blobs.append(try await Self.store(Fixture.catalogRows + Data("\(seed)".utf8), in: store)) }
            #expect(blobs.map { maker.request($0) } == [true, false, false])
            #expect(maker.request(blobs[0]), "the same content joins")
            #expect(maker.done.refused == 2 && maker.done.mostPending == 1)
            try await Self.running(maker) {
                // Waits for the queued content itself (joining its waiters), not for a clock: the
                // maker encodes at nice 19, and under a full parallel run it may wait minutes for a core.
                _ = await maker.make(of: blobs[0])
                #expect(maker.pending == 0 && maker.done.encoded == 2, "the one queued content, both encodings")
                let refused = try await BlobIndex(catalog).contentVariants(of: blobs[1].sha256)
                #expect(refused.isEmpty, "refused, and no channel lists it")
            }
        }
    }

    @Test("in the background: the release is committed before the variants; /files/ negotiates them once made; the next release lists them")
    func background() async throws {
        var configuration = ServerConfiguration()
        configuration.variants = Self.quick
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                // Past 64 files a release has two pages: the next release touches only the note's.
                for index in 0..<70 { _ = try await connection.publishedEntry("f/\(index).txt", Data("\(index)\n".utf8)) }
                let first = try await connection.publishedEntry("db/catalog.sqlite", Fixture.catalogRows)
                #expect(first["brotli"] == nil && first["zstd"] == nil, "the catalog's release was committed before its variants existed")
                // Hang guard: slowest seen 1.4 s under two busy loops (the whole test).
                let brotli = try await poll(for: .seconds(60)) { () -> RawHTTPResponse? in
                    let response = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Accept-Encoding", "br")])
                    return response.header("Content-Encoding") == "br" ? response : nil
                }
                #expect(brotli != nil, "negotiated once made")
                // Hang guard: slowest seen 1.4 s under two busy loops (the whole test).
                _ = try await poll(for: .seconds(60)) { () -> Bool? in
                    try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Accept-Encoding", "zstd")])
                        .header("Content-Encoding") == "zstd" ? true : nil
                }
                let page = { (path: String) in ReleasePaging.page(ofBucket: ReleasePaging.bucket(ofPath: path), bits: 1) }
                let note = try #require((0..<100).map { "note-\($0).txt" }.first { page($0) != page("db/catalog.sqlite") })
                _ = try await connection.publishedEntry(note, Data("a note\n".utf8))
                let files = try await connection.releaseFiles()
                let listed = try #require(files.first { $0["path"] as? String == "db/catalog.sqlite" })
                // The next release re-encodes the catalog's page, untouched, to list the variants made since.
                #expect(listed["brotli"] != nil && listed["zstd"] != nil)
            }
        }
    }
}
