import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/leftovers`, the check `scripts/test` runs after each test pass: it stops the
/// processes of its own run, and nothing else on the machine.
@Suite("The test run's check for leftovers")
struct LeftoversCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/lib/leftovers")

    @Test("it stops its run's marked processes and those named by its folder; an unrelated depot serve runs on")
    func ownRunOnly() async throws {
        try await withTemporaryDirectory { folder in
            let run = "leftovers-\(UUID().uuidString)"
            let runFolder = folder.appendingPathComponent("run")
            let log = try runFolder.write(Data(), to: "log")
            let serve = { (data: String) in ["serve", "--port", "0", "--public", "public", "--data", data] }
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("public"), withIntermediateDirectories: true)
            // Another checkout's server, or a second CI job's: another run's marker.
            try await DepotProcess.with(serve("data"), environment: ["DEPOT_TEST_RUN": "another-run"], in: folder) { unrelated in
                _ = try await unrelated.waitForPort()
                // The run's own: a server with its marker, and a program without it (as nginx's
                // processes) whose command line names the run's folder.
                try await DepotProcess.with(serve("data-own"), environment: ["DEPOT_TEST_RUN": run], in: folder) { marked in
                    _ = try await marked.waitForPort()
                    try await ChildProcess.with("/usr/bin/tail", ["-f", log.path], environment: ["DEPOT_TEST_RUN": "none"]) { named in
                        let check = try await ChildProcess.run(Self.script.path, [run, runFolder.path])
                        let said = String(decoding: check.standardError, as: UTF8.self)
                        #expect(check.status == 1)
                        #expect(said.contains("\(marked.process.processIdentifier) ") && said.contains("\(named.processIdentifier) "), "\(said)")
                        #expect(!said.contains("\(unrelated.process.processIdentifier) "), "\(said)")
                        // Hang guard: slowest seen 3.0 s under two busy loops (the whole test, for both).
                        #expect(try await marked.waitForExit(timeout: .seconds(60)) == SIGKILL)
                        #expect(try await named.waitForExit(timeout: .seconds(60)) == SIGKILL)
                        #expect(unrelated.isRunning)
                        // Nothing of the run is left (its killed processes are not yet reaped, and
                        // have no command line or environment): the next check passes.
                        #expect(try await ChildProcess.run(Self.script.path, [run, runFolder.path]).status == 0)
                    }
                }
            }
        }
    }
}
