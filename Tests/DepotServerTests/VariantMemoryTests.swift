import DepotHTTP
import DepotStore
import DepotTestSupport
import Foundation
import Logging
import Prometheus
import Testing
import _NIOFileSystem

@testable import DepotServer

/// Issue 57, defect 6: variant making read each whole file into memory as soon as it was
/// queued (six concurrent 16 MiB uploads added about 96 MiB at once), and nothing bounded how
/// many waited. Now the queue holds contents' names, the maker reads one 1 MiB chunk at a time,
/// and past `variants.maximumPending` a request is refused, logged and counted.
@Suite("Variants: memory follows a bound, not the files waiting")
struct VariantMemoryTests {
    /// Holds the variant maker's thread after the first chunk it reads, until opened: a gate,
    /// not a sleep.
    final class ChunkGate: @unchecked Sendable {
        private let condition = NSCondition()
        private var isOpen = false
        private var arrivals = 0

        /// What the maker's thread calls after each chunk: waits while the gate is shut.
        func pass() {
            condition.lock()
            defer { condition.unlock() }
            arrivals += 1
            while !isOpen { condition.wait() }
        }

        func open() {
            condition.lock()
            defer { condition.unlock() }
            isOpen = true
            condition.broadcast()
        }

        /// Whether the maker's thread waits at the gate.
        var holding: Bool {
            condition.lock()
            defer { condition.unlock() }
            return arrivals > 0 && !isOpen
        }
    }

    /// `size` bytes of catalog rows, different for each `seed`: gzip, brotli and zstd all pay.
    static func rows(size: Int, seed: Int) -> Data {
        var data = Data("seed \(seed)\n".utf8)
        while data.count < size { data += Fixture.catalogRows }
        return data.prefix(size)
    }

    /// Publishes the six `files` at once, on six connections, to a server whose variant maker
    /// waits at `gate` from its first chunk; returns once all six were answered 201 and the
    /// maker holds at the gate.
    static func publishAtOnce(_ files: [Data], to server: InProcessServer, gate: ChunkGate) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, data) in files.enumerated() {
                group.addTask {
                    try await server.connection { connection in
                        try await connection.request(
                            "PUT",
                            "/v1/files/big/\(index).bin",
                            headers: [("Authorization", "Bearer \(PublishToken.secret)")],
                            body: Array(data)
                        ).status
                    }
                }
            }
            for try await status in group { #expect(status == 201) }
        }
        // Hang guard: slowest seen 29 s under two busy loops (the whole test).
        #expect(try await poll(for: .seconds(300)) { gate.holding ? true : nil } == true, "an encoding reached the gate")
    }

    /// The variant maker's series at `/metrics`.
    static func variantMetrics(_ connection: inout InProcessConnection) async throws -> (queued: Int, buffered: Int, refused: Int) {
        (
            Int(try await connection.metric("depot_variant_queue_contents")),
            Int(try await connection.metric("depot_variant_buffered_bytes")),
            Int(try await connection.metric("depot_variant_requests_refused_total"))
        )
    }

    /// Waits until `/files/big/{index}.bin` is served as brotli for each of `count` files.
    static func waitForBrotli(count: Int, _ connection: inout InProcessConnection) async throws -> Bool {
        for index in 0..<count {
            // Hang guard: slowest seen 29 s under two busy loops (the whole test).
            let made = try await poll(for: .seconds(300)) { () -> Bool? in
                let response = try await connection.request("HEAD", "/files/big/\(index).bin", headers: [("Accept-Encoding", "br")])
                return response.header("Content-Encoding") == "br" ? true : nil
            }
            guard made == true else { return false }
        }
        return true
    }

    @Test("six concurrent 16 MiB uploads wait behind a held encoding: the maker holds one 1 MiB chunk, not 96 MiB")
    func sixUploadsWait() async throws {
        let gate = ChunkGate()
        defer { gate.open() }
        var configuration = ServerConfiguration()
        configuration.variants = VariantBackgroundTests.quick
        configuration.variantChunkRead = { gate.pass() }
        let files = (0..<6).map { Self.rows(size: 16 << 20, seed: $0) }
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await Self.publishAtOnce(files, to: server, gate: gate)
            try await server.connection { connection in
                let held = try await Self.variantMetrics(&connection)
                #expect(held.queued == 6, "all six wait, the one held included")
                #expect(held.buffered == VariantMaker.chunkSize, "one chunk of the held encoding; the queue holds names, no bytes")
                #expect(held.refused == 0)
                gate.open()
                let made = try await Self.waitForBrotli(count: 6, &connection)
                #expect(made, "all six made, one after the other")
                // A file serves its brotli variant before the maker is done with it (its zstd
                // variant, its place in the queue): the queue drains a moment later.
                // Hang guard: slowest seen 29 s under two busy loops (the whole test).
                let drained = try await poll(for: .seconds(300)) { () -> Bool? in
                    let metrics = try await Self.variantMetrics(&connection)
                    return metrics.queued == 0 && metrics.buffered == 0 ? true : nil
                }
                #expect(drained == true, "the queue drained, and no bytes are held")
            }
        }
    }

    @Test("past variants.maximumPending, uploads are refused and counted, not held; found again once the queue drained")
    func boundRefuses() async throws {
        let gate = ChunkGate()
        defer { gate.open() }
        var configuration = ServerConfiguration()
        configuration.variants = VariantBackgroundTests.quick
        configuration.variants.maximumPending = 4
        configuration.variantChunkRead = { gate.pass() }
        let files = (0..<6).map { Self.rows(size: 2 << 20, seed: $0) }
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await Self.publishAtOnce(files, to: server, gate: gate)
            try await server.connection { connection in
                let held = try await Self.variantMetrics(&connection)
                #expect(held.queued == 4 && held.refused == 2, "\(held)")
                #expect(held.buffered == VariantMaker.chunkSize, "one chunk, however many were refused")
                gate.open()
                let made = try await Self.waitForBrotli(count: 6, &connection)
                #expect(made, "the two refused were found again in the catalog")
            }
        }
    }

    @Test(
        "the maker alone: a full queue refuses with one warning an overflow and a count each; an encoding holds one chunk at most",
        // Hang guard: slowest seen 29 s under two busy loops (the whole test). The time limit is one too.
        .timeLimit(.minutes(10))
    )
    func refusalLoggedOnce() async throws {
        try await withTemporaryDirectory { folder in
            let log = ServerLog()
            let data = FilePath(folder.appendingPathComponent("data").path)
            let store = try await BlobStore.open(dataDirectory: data, logger: log.logger)
            let catalog = try Catalog(path: data.appending("catalog.sqlite").string)
            let registry = PrometheusCollectorRegistry()
            var variants = VariantBackgroundTests.quick
            variants.maximumPending = 2
            let maker = VariantMaker(
                blobs: BlobIndex(catalog),
                store: store,
                variants: variants,
                metrics: VariantMetrics(registry: registry),
                logger: log.logger
            )
            var blobs: [BlobRecord] = []
            for seed in 0..<5 { blobs.append(try await VariantBackgroundTests.store(Self.rows(size: 3 << 20, seed: seed), in: store)) }
            #expect(blobs.map { maker.request($0) } == [true, true, false, false, false])
            let warnings = log.messages(at: .warning)
            #expect(warnings.count == 1 && warnings[0].hasPrefix("Variant queue full"), "one line an overflow, not one a request")
            var text = [UInt8]()
            registry.emit(into: &text)
            #expect(String(decoding: text, as: UTF8.self).contains("depot_variant_requests_refused_total 3"))
            #expect(maker.buffered.now == 0, "queued: nothing read")
            try await VariantBackgroundTests.running(maker) {
                // Waits for the two queued contents themselves, not for a clock: the maker encodes
                // at nice 19, and under a full parallel run it may wait minutes for a core.
                for blob in blobs.prefix(2) { _ = await maker.make(of: blob) }
                #expect(maker.pending == 0 && maker.done.encoded == 4, "the two queued contents, both encodings each")
            }
            #expect(maker.buffered.now == 0)
            #expect(maker.buffered.most == VariantMaker.chunkSize, "3 MiB files, two encodings each: one 1 MiB chunk at most")
        }
    }
}
