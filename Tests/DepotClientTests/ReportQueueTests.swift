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
            for n in 0..<ReportQueue.defaultCapacity { try queue.add(.applied, release: release(n), channel: "stable", install: install) }
            var sent: [ReportQueue.Report] = []
            try await queue.flush { reports in
                sent = reports
                // The app reports while the sync's request is on its way.
                for n in 1000..<1003 { try queue.add(.failed(reason: "crash \(n)"), release: release(n), channel: "stable", install: install) }
            }
            #expect(sent.count == ReportQueue.defaultCapacity)
            var left: [ReportQueue.Report] = []
            try await queue.flush { left = $0 }
            #expect(left.map(\.release) == (1000..<1003).map(release), "the three added meanwhile are kept, and only they")
            #expect(left.allSatisfy { $0.install == install.reportHash(release: $0.release) && $0.kind == "failed" })
        }
    }

    @Test("defect 28: a full queue drops the oldest and counts them, a failed send is kept as the reason, and a delivery clears both")
    func droppedAndReason() async throws {
        try await withTemporaryDirectory { folder in
            var queue = ReportQueue(folder: SyncFolder(path: folder.path))
            queue.capacity = 3
            let install = InstallID.random()
            for n in 0..<5 { try queue.add(.applied, release: String(format: "%064x", n), channel: "stable", install: install) }
            await #expect(throws: SyncError.self) { try await queue.flush { _ in throw SyncError(.server, "the report server answered 405") } }
            var (queued, status) = try queue.status()
            #expect(queued == 3 && status == ReportQueue.Status(dropped: 2, reason: "the report server answered 405"))
            try queue.hold(reason: "no report server")
            #expect(try queue.status().status.reason == "no report server")

            var sent: [ReportQueue.Report] = []
            try await queue.flush { sent = $0 }
            #expect(sent.map(\.release) == (2..<5).map { String(format: "%064x", $0) }, "the oldest two went")
            (queued, status) = try queue.status()
            #expect(queued == 0 && status == ReportQueue.Status())
        }
    }
}
