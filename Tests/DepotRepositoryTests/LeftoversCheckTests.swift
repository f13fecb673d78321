import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/leftovers`, the check `scripts/test` runs after each test pass: it stops the
/// processes of its own run, and nothing else on the machine. It knows a process by its
/// environment's marker and its command line only, never by what the program is, so the
/// processes here are `sleep` and `tail`: no `depot` binary, no server.
@Suite("The test run's check for leftovers")
struct LeftoversCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/lib/leftovers")

    @Test("it stops its run's marked processes and those named by its folder; another run's process (another checkout's server) runs on")
    func ownRunOnly() async throws {
        try await withTemporaryDirectory { folder in
            let run = "leftovers-\(UUID().uuidString)"
            let runFolder = folder.appendingPathComponent("run")
            let log = try runFolder.write(Data(), to: "log")
            // Runs until killed: a server, as the script sees one.
            let server = ("/usr/bin/sleep", ["3600"])
            // Another checkout's server, or a second CI job's: another run's marker.
            try await ChildProcess.with(server.0, server.1, environment: ["DEPOT_TEST_RUN": "another-run"]) { unrelated in
                // The run's own: a server with its marker, and a program without it (as nginx's
                // processes) whose command line names the run's folder.
                try await ChildProcess.with(server.0, server.1, environment: ["DEPOT_TEST_RUN": run]) { marked in
                    try await ChildProcess.with("/usr/bin/tail", ["-f", log.path], environment: ["DEPOT_TEST_RUN": "none"]) { named in
                        let check = try await ChildProcess.run(Self.script.path, [run, runFolder.path])
                        let said = String(decoding: check.standardError, as: UTF8.self)
                        #expect(check.status == 1)
                        #expect(said.contains("\(marked.processIdentifier) ") && said.contains("\(named.processIdentifier) "), "\(said)")
                        #expect(!said.contains("\(unrelated.processIdentifier) "), "\(said)")
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
