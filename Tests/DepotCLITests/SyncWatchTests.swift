import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotCommands

#if canImport(Glibc)
import Glibc
#endif

/// `depot sync --watch` as a kiosk, a mirror or a sidecar runs it: a server that is not there
/// yet is a logged failure and a retry, not the end; the backoff is a rule tested as a table.
@Suite("depot sync --watch")
struct SyncWatchTests {
    /// (failures in a row, jitter, seconds): `--watch 2 --max-backoff 30s`.
    static let delays: [(Int, Double, Double)] = [
        (0, 0, 2), (0, 1, 2),  // a success: the interval, no jitter
        (1, 0, 2), (2, 0, 4), (3, 0, 8), (4, 0, 16), (5, 0, 30), (6, 0, 30), (1_000, 0, 30),  // doubling, capped
        (1, 1, 1.5), (5, 1, 22.5), (3, 0.5, 7),  // a quarter at most taken off
        (2, -3, 4), (2, 7, 3),  // jitter outside 0...1 clamped
    ]

    @Test("the backoff: the interval doubled for each failure in a row, capped, less up to a quarter", arguments: delays)
    func backoff(failures: Int, jitter: Double, seconds: Double) {
        #expect(WatchSchedule(interval: 2, maximumBackoff: 30).delay(afterFailures: failures, jitter: jitter) == seconds)
    }

    @Test("a cap below the interval never makes failures retry more often than the interval")
    func capBelowInterval() {
        let schedule = WatchSchedule(interval: 3600, maximumBackoff: 300)
        #expect(schedule.delay(afterFailures: 1, jitter: 0) == 3600)
        #expect(schedule.delay(afterFailures: 9, jitter: 0) == 3600)
    }

    @Test("the loop: a failure is logged and waits longer each time; a success starts over; a cancelled sleep ends it")
    func loop() async {
        // Rounds: three failures, a success, a failure, a success; the seventh sleep stops it.
        let outcomes: [Bool] = [false, false, false, true, false, true]
        let state = Mutex((round: 0, sleeps: [Double](), lines: [String]()))
        struct Down: Error, CustomStringConvertible {
            var description: String { "cannot connect to http://user:secret@127.0.0.1:9/: connection refused" }
        }
        let loop = WatchLoop(
            schedule: WatchSchedule(interval: 1, maximumBackoff: 300),
            round: {
                let ok = state.withLock { state in
                    defer { state.round += 1 }
                    return state.round < outcomes.count ? outcomes[state.round] : true
                }
                if !ok { throw Down() }
            },
            log: { _, line in state.withLock { $0.lines.append(line) } },
            sleep: { seconds in
                let count = state.withLock { state in
                    state.sleeps.append(seconds)
                    return state.sleeps.count
                }
                if count == 7 { throw CancellationError() }
            },
            jitter: { 0 }
        )
        await loop.run()
        let (round, sleeps, lines) = state.withLock { ($0.round, $0.sleeps, $0.lines) }
        #expect(round == 7)
        #expect(sleeps == [1, 2, 4, 1, 1, 1, 1])
        #expect(lines.count == 4)
        #expect(
            lines.first == "Sync failed: cannot connect to http://127.0.0.1:9/: connection refused. Failures in a row: 1; trying again in 1.0 s."
        )
        #expect(lines.dropFirst(2).first?.contains("Failures in a row: 3; trying again in 4.0 s.") == true, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("secret") })
    }

    @Test("--watch against a server that is not there: logs each failure, keeps trying, syncs once it is up, stops on SIGTERM")
    func unreachableThenUp() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let port = try Self.freePort()
            let server = "http://127.0.0.1:\(port)"
            try await DepotProcess.with(["sync", "--server", server, "--dir", "out", "--watch", "1", "--max-backoff", "2s"], in: root) { watcher in
                // Hang guard: slowest seen 3.2 s under two busy loops (the whole test).
                let failed = try await poll(for: .seconds(60)) { () -> Int? in
                    let count = watcher.log.components(separatedBy: "Sync failed: ").count - 1
                    return count >= 2 ? count : nil
                }
                #expect(failed != nil, "two failures logged: \(watcher.log)")
                #expect(watcher.isRunning, "it keeps running: \(watcher.log)")
                #expect(watcher.log.contains("Sync failed: cannot reach \(server)"), "\(watcher.log)")
                #expect(watcher.log.contains(". Failures in a row: 2; trying again in "), "\(watcher.log)")

                try await DepotProcess.with(
                    ["serve", "--port", "\(port)", "--public", "public", "--data", "data"],
                    environment: ["DEPOT_PUBLISH_TOKENS": InProcessCLI.token],
                    in: root
                ) { depot in
                    #expect(try await depot.waitForPort() == port)
                    try root.write(Data("one\n".utf8), to: "site/a.txt")
                    try await InProcessCLI.publish(["site"], to: server, in: root)
                    // The round's summary line is its end: the switch is done and said.
                    // Hang guard: slowest seen 3.2 s under two busy loops (the whole test).
                    let synced = try await poll(for: .seconds(60)) { watcher.log.contains("1 updated, 0 unchanged") ? true : nil }
                    #expect(synced != nil, "it synced once the server was up: \(watcher.log)")
                    #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == "one\n")
                    #expect(watcher.isRunning)
                    watcher.process.send(SIGTERM)
                    #expect(try await watcher.waitForExit() == 0, "\(watcher.log)")
                    #expect(watcher.log.hasSuffix("Stopped by SIGTERM.\n"), "\(watcher.log)")
                    #expect(try await depot.stop() == 0)
                }
            }
        }
    }

    /// A port on 127.0.0.1 nothing listens on: bound, read, and closed again.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw CocoaError(.fileReadUnknown) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
