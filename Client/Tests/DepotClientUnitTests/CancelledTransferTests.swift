import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// Issue 58, attack: a check cancelled at any moment ends. A `BGAppRefreshTask`'s expiration
/// handler cancels the updater's check; the transfer under way must then end, or the check holds
/// the updater's turn forever (every later check and apply waits behind it) and the system's
/// task never completes. A cancel that came before the request's task was started was lost: the
/// task's end was told before anyone waited for it.
@Suite("A cancelled transfer ends")
struct CancelledTransferTests {
    @Test("a download cancelled at any moment, against a server that refuses connections, ends", .timeLimit(.minutes(10)))
    func cancelledAnyMoment() async throws {
        try await withTemporaryDirectory { folder in
            let client = DepotClient(server: UpdaterScheduleTests.down, directory: folder.appendingPathComponent("app"))
            for round in 0..<300 {
                let download = Task { try await client.download() }
                for _ in 0..<(round % 30) { await Task.yield() }
                download.cancel()
                _ = try? await download.value
            }
        }
    }
}
