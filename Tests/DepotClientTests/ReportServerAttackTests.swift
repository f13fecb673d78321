import DepotAPI
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

#if canImport(Glibc)
import Glibc
#endif

/// Issue 57, cause 8: the adversarial pass on health reports' delivery (defect 28's surface), as
/// a hostile report server and a local process that writes `.depot/` would try it.
@Suite("Report server attacks")
struct ReportServerAttackTests {
    static let release = String(repeating: "a", count: 64)

    /// A client reporting to `reportServer` from `folder`, one report waiting in its queue.
    static func client(_ folder: URL, reportServer: String) throws -> DepotClient {
        var configuration = DepotClient.Configuration(sendsReports: true)
        configuration.reportServer = URL(string: reportServer)
        let client = DepotClient(server: try #require(URL(string: "http://127.0.0.1:1/")), directory: folder, configuration: configuration)
        try client.reportQueue.add(.failed(reason: "crash"), release: Self.release, channel: "stable", install: InstallID.random())
        return client
    }

    static func text(_ folder: URL, _ file: String) -> String {
        FileManager.default.contents(atPath: folder.appendingPathComponent(file).path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    @Test("a report server's password is never said, nor kept; one answering 503 forever keeps the queue and one reason, not grown")
    func credentialsAndServerError() async throws {
        try await InProcessBrokenHost.with(.status(503)) { server in
            try await withTemporaryDirectory { folder in
                let client = try Self.client(folder, reportServer: server.url("/").replacingOccurrences(of: "http://", with: "http://user:PASS@"))
                for _ in 0..<3 { await client.sendReports() }
                let delivery = try #require(try client.reportDelivery())
                #expect(
                    delivery
                        == ReportDelivery(
                            queued: 1,
                            reason: "the report server \(server.url("/")) answered 503",
                            dropped: 0,
                            capacity: 100,
                            server: server.url("/")
                        )
                )
                #expect(server.requestsRead == 3)
                let kept = Self.text(folder, ReportQueue.statusFile) + Self.text(folder, ReportQueue.file)
                #expect(!kept.contains("PASS") && !kept.contains("user"), "\(kept)")
            }
        }
    }

    @Test("a report server that cannot be reached: its password is not in the reason")
    func credentialsUnreachable() async throws {
        try await withTemporaryDirectory { folder in
            let client = try Self.client(folder, reportServer: "http://user:PASS@127.0.0.1:1/")
            await client.sendReports()
            let delivery = try #require(try client.reportDelivery())
            #expect(delivery.queued == 1 && delivery.reason != nil)
            #expect(!"\(delivery)".contains("PASS") && !Self.text(folder, ReportQueue.statusFile).contains("PASS"), "\(delivery)")
        }
    }

    @Test("a report server redirecting to another host: the other host is never asked, the reports wait")
    func redirectElsewhere() async throws {
        try await InProcessBrokenHost.with(.status(202)) { swallower in
            try await InProcessBrokenHost.with(.redirect(swallower.url("/v1/reports"))) { server in
                try await withTemporaryDirectory { folder in
                    let client = try Self.client(folder, reportServer: server.url("/"))
                    await client.sendReports()
                    #expect(server.requestsRead == 1)
                    #expect(swallower.requestsRead == 0, "a redirect to another origin is not followed")
                    #expect(try client.reportDelivery()?.queued == 1)
                    #expect(try client.reportDelivery()?.reason == "the report server \(server.url("/")) answered 307")
                }
            }
        }
    }

    @Test("a report server that never answers: the send gives up at the minimum rate, by the client's clock, and the report waits")
    func silentServer() async throws {
        try await InProcessBrokenHost.with(.silence) { server in
            try await withTemporaryDirectory { folder in
                let clock = ManualClock()
                let configuration = DepotClient.Configuration(
                    minimumTransferRate: 10,
                    transferRateWindow: 3,
                    transferClock: clock,
                    documentTimeout: 100_000,
                    sendsReports: true,
                    reportServer: URL(string: server.url("/"))
                )
                let client = DepotClient(server: URL(string: "http://127.0.0.1:1/")!, directory: folder, configuration: configuration)
                try client.reportQueue.add(.applied, release: Self.release, channel: "stable", install: InstallID.random())
                // The client's clock moves 1 s every 20 ms once the request is read: the send
                // must end within 1,000 steps (about 20 s of real time, and 1,000 s of its clock).
                let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        await client.sendReports()
                        return true
                    }
                    group.addTask {
                        while server.requestsRead == 0 { try await Task.sleep(for: .milliseconds(20)) }
                        // Hang guard: slowest seen 1.1 s under two busy loops (the whole test).
                        for _ in 0..<1_000 {
                            try await Task.sleep(for: .milliseconds(20))
                            clock.advance(by: .seconds(1))
                        }
                        return false
                    }
                    let first = try await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                #expect(ended, "still waiting after 1,000 s of the client's clock")
                let delivery = try #require(try client.reportDelivery())
                #expect(delivery.queued == 1 && delivery.reason?.contains("slower than 10 bytes/s") == true, "\(delivery)")
            }
        }
    }

    @Test("reports.json as a FIFO (it would block the read), or as a link: the queue starts over, nothing hangs, the link is not followed")
    func plantedInPlace() async throws {
        try await withTemporaryDirectory { folder in
            let client = try Self.client(folder, reportServer: "http://127.0.0.1:1/")
            let queue = folder.appendingPathComponent(ReportQueue.file).path
            let outside = folder.appendingPathComponent("outside.json")
            let held = try JSONDecoder().decode([ReportQueue.Report].self, from: Data(contentsOf: URL(fileURLWithPath: queue)))
            try Data(try APIJSON.encoder.encode((0..<5).flatMap { _ in held })).write(to: outside)
            let outsideBefore = try Data(contentsOf: outside)

            try FileManager.default.removeItem(atPath: queue)
            try FileManager.default.createSymbolicLink(atPath: queue, withDestinationPath: outside.path)
            #expect(try client.reportDelivery()?.queued == 0, "a link is not followed")
            try client.reportQueue.add(.healthy, release: Self.release, channel: "stable", install: InstallID.random())
            #expect(try Data(contentsOf: outside) == outsideBefore, "nor written through")
            #expect(try client.reportDelivery()?.queued == 1)

            try FileManager.default.removeItem(atPath: queue)
            #expect(mkfifo(queue, 0o600) == 0)
            // A FIFO with no writer blocks open(2) for good: bounded here, so that the test fails
            // instead of hanging (no rate or deadline is judged by it).
            let read = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { try client.reportDelivery()?.queued }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    // Unblocks the read, had it blocked, so that the group can end.
                    let writer = open(queue, O_WRONLY | O_NONBLOCK)
                    if writer >= 0 { close(writer) }
                    return -1
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            #expect(read == 0, "a FIFO is not read (-1: the read blocked)")
        }
    }

    @Test("reports-delivery.json edited: a negative count is not believed; a huge file is not read")
    func editedStatus() async throws {
        try await withTemporaryDirectory { folder in
            let client = try Self.client(folder, reportServer: "http://127.0.0.1:1/")
            let status = folder.appendingPathComponent(ReportQueue.statusFile)
            try Data(#"{"dropped":-5,"reason":"\u001b[2J\nforged"}"#.utf8).write(to: status)
            #expect(try client.reportDelivery()?.dropped == 0)
            try client.reportQueue.add(.healthy, release: Self.release, channel: "stable", install: InstallID.random())
            #expect(try client.reportDelivery()?.dropped == 0, "the bound counts from 0, not from -5")

            let huge = #"{"dropped":1,"reason":""# + String(repeating: "x", count: 1 << 20) + #""}"#
            try Data(huge.utf8).write(to: status)
            #expect(try client.reportDelivery()?.dropped == 0, "a status file past its bound is not read")
        }
    }
}
