import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// Outcomes an app can act on: a sync or download whose files fail throws, the report attached.
@Suite("Sync outcomes")
struct SyncOutcomeTests {
    @Test(
        "a sync and a download whose file arrives damaged throw: the first failure's code, a message for the log, a sentence for the user, the report"
    )
    func failedFilesThrow() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("noise.bin", Fixture.pseudoRandom(count: 100_000, seed: 58))])
            try await InProcessRelay.with(in: server) { relay in
                try await withTemporaryDirectory { root in
                    let base = try #require(URL(string: relay.url("/")))
                    let client = DepotClient(server: base, directory: root.appendingPathComponent("sync"))
                    relay.tamper("/blobs/")
                    for step in ["sync", "download"] {
                        let error = await #expect(throws: SyncError.self, "\(step)") {
                            _ = step == "sync" ? try await client.sync() : try await client.download()
                        }
                        let report = try #require(error?.report, "\(step): \(String(describing: error))")
                        #expect(error?.code == .corrupt, "\(step)")
                        let message = error?.message ?? ""
                        #expect(message.hasPrefix("1 file could not be synced; the first, noise.bin: "), "\(message)")
                        #expect(report.failedCount == 1 && report.files.first?.path == "noise.bin" && report.files.first?.code == .corrupt)
                        #expect(report.release == nil && report.staged == nil, "nothing applied or staged")
                        let shown = (try #require(error) as any Error).localizedDescription
                        #expect(shown == "The update arrived damaged and was not installed. Try again later.")
                    }
                    // The bytes untouched again: the same client succeeds, and returns.
                    relay.tamper(nil)
                    #expect(try await client.sync().release?.number == 1)
                }
            }
        }
    }
}
