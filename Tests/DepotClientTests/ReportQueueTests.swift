import DepotAPI
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// The client's queue of health reports in `.depot/reports.json`.
@Suite("Report queue")
struct ReportQueueTests {
    @Test("a flush forgets only what it sent, when reports added meanwhile pushed the oldest out of a full queue")
    func flushWhileAdding() async throws {
        try await withTemporaryDirectory { folder in
            let queue = ReportQueue(folder: SyncFolder(path: folder.path))
            let install = InstallID.random()
            let release = { (n: Int) in String(format: "%064x", n) }
            for n in 0..<ReportQueue.capacity { try queue.add(.applied, release: release(n), channel: "stable", install: install) }
            var sent: [ReportQueue.Report] = []
            try await queue.flush { reports in
                sent = reports
                // The app reports while the sync's request is on its way.
                for n in 1000..<1003 { try queue.add(.failed(reason: "crash \(n)"), release: release(n), channel: "stable", install: install) }
            }
            #expect(sent.count == ReportQueue.capacity)
            var left: [ReportQueue.Report] = []
            try await queue.flush { left = $0 }
            #expect(left.map(\.release) == (1000..<1003).map(release), "the three added meanwhile are kept, and only they")
            #expect(left.allSatisfy { $0.install == install.reportHash(release: $0.release) && $0.kind == "failed" })
        }
    }
}
