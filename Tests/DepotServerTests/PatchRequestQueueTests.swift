import DepotConnection
import DepotHTTP
import DepotStore
import DepotTestSupport
import Foundation
import Logging
import NIOCore
import Testing
import _NIOFileSystem

@testable import DepotServer

/// The queue of patches clients ask for (``PatchMaker/requestPatch(from:to:)``), driven by hand:
/// its run loop is started only once the queue is in the state the test wants.
@Suite("Patches made on request: the queue")
struct PatchRequestQueueTests {
    @Test("past deltas.maximumPendingRequests pairs, another pair is told to come back; the same pair joins; the run answers both")
    func busy() async throws {
        try await withTemporaryDirectory { folder in
            let logger = Logger(label: "test")
            let data = FilePath(folder.appendingPathComponent("data").path)
            let store = try await BlobStore.open(dataDirectory: data, logger: logger)
            let catalog = try Catalog(path: data.appending("catalog.sqlite").string)
            var contents: [String] = []
            for number in 1...3 {
                let blob = try await store.ingest(
                    AsyncStream {
                        $0.yield(ByteBuffer(bytes: Array(Fixture.catalogVersion(number))))
                        $0.finish()
                    }
                )
                _ = try await ReleaseStore(catalog).publish(
                    .init(path: "c.txt", blob: blob, contentType: "text/plain", now: .now(), keepVersions: 10)
                )
                store.release(blob.sha256)
                contents.append(blob.sha256)
            }
            let maker = PatchMaker(
                blobs: BlobIndex(catalog),
                store: store,
                configuration: DeltaConfiguration(distances: [1], maximumPendingRequests: 1),
                variants: VariantMaker(blobs: BlobIndex(catalog), store: store, variants: .none, logger: logger),
                metrics: DepotMetrics(),
                logger: logger
            )
            let first = (from: contents[0], to: contents[2])
            let outcomes = try await withThrowingTaskGroup(of: PatchMaker.RequestOutcome?.self) { group in
                group.addTask { try await maker.requestPatch(from: first.from, to: first.to) }
                while maker.pendingPairs == 0 { try await Task.sleep(for: .milliseconds(5)) }
                #expect(try await maker.requestPatch(from: contents[1], to: contents[2]) == .busy)
                #expect(try await maker.requestPatch(from: String(repeating: "a", count: 64), to: contents[0]) == .refused, "no version of the path")
                // Newer to older is a pair too (a rollback's), so it waits its turn.
                #expect(try await maker.requestPatch(from: contents[2], to: contents[0]) == .busy)
                group.addTask { try await maker.requestPatch(from: first.from, to: first.to) }
                group.addTask {
                    try await maker.run()
                    return nil
                }
                var outcomes: [PatchMaker.RequestOutcome] = []
                while outcomes.count < 2, let outcome = try await group.next() {
                    if let outcome { outcomes.append(outcome) }
                }
                group.cancelAll()
                return outcomes
            }
            #expect(outcomes == [.done, .done])
            #expect(try await BlobIndex(catalog).patch(from: first.from, to: first.to) != nil)
            #expect(try await BlobIndex(catalog).onRequestPatchSource(from: first.from, to: first.to) == nil, "made once: no second encoding")
        }
    }
}
