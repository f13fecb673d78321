import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

// A process as the system sees it: the system calls `depot serve` makes (strace) and the signals
// `depot sync --watch` answers. The subject is the process, so each suite here spawns it.

/// What a publish makes durable before it is acknowledged, read from the system calls of the
/// real server (strace, which `scripts/setup` installs).
@Suite("Durability")
struct DurabilityTests {
    static let token = "durability-token"

    @Test("a new blobs/xx folder is fsynced in blobs/ before the publish is acknowledged")
    func newBlobFolderIsSynced() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let trace = root.appendingPathComponent("trace")
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: ["DEPOT_PUBLISH_TOKENS": Self.token],
                in: root,
                wrapper: [
                    "/usr/bin/strace", "-f", "-qq", "-e", "trace=mkdir,mkdirat,open,openat,close,dup,dup2,dup3,fcntl,fsync,rename,renameat,renameat2",
                    "-o", trace.path,
                ]
            ) { depot in
                let port = try await depot.waitForPort()
                let reply = try await RawHTTPConnection.with(port: port) {
                    try await $0.request(
                        "PUT",
                        "/v1/files/a.txt",
                        headers: [("Authorization", "Bearer \(Self.token)")],
                        body: Array("durable\n".utf8)
                    )
                }
                #expect(reply.status == 201)
                let sha256 = Fixture.sha256(Data("durable\n".utf8))
                let blobs = "data/blobs"  // as the server names it, under --data data
                let folder = "\(blobs)/\(sha256.prefix(2))"
                let calls = SystemCallTrace(log: try String(contentsOf: trace, encoding: .utf8)).calls
                let shown = calls.filter { $0.paths.contains { $0.contains("blobs") } }.map {
                    "\($0.name)(\($0.arguments.joined(separator: ", "))) = \($0.result) \($0.paths)"
                }
                // The folder blobs/xx is made (by its path, or by its name relative to a
                // descriptor of blobs/), then a descriptor of blobs/ itself is fsynced, then the
                // blob is renamed into blobs/xx; all before the 201.
                let made = try #require(
                    calls.firstIndex { ["mkdir", "mkdirat"].contains($0.name) && $0.succeeded && $0.paths.first?.names(folder) == true },
                    "\(shown.joined(separator: "\n"))"
                )
                let renamed = try #require(
                    calls[made...].firstIndex { $0.name.hasPrefix("rename") && $0.succeeded && $0.paths.last?.names("\(folder)/\(sha256)") == true },
                    "\(shown.joined(separator: "\n"))"
                )
                let parentSynced = calls[made..<renamed].contains { $0.name == "fsync" && $0.succeeded && $0.paths.first?.names(blobs) == true }
                #expect(parentSynced, "\(shown.joined(separator: "\n"))")
            }
        }
    }
}

/// `depot sync --watch` as a process: it outlives a server that is not there, and SIGTERM ends it
/// cleanly (was SyncWatchTests').
@Suite("depot sync --watch, the process")
struct SyncWatchProcessTests {
    @Test("--watch against a server that is not there: logs each failure, keeps trying, syncs once it is up, stops on SIGTERM")
    func unreachableThenUp() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let port = try await freeLocalPort()
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
}
