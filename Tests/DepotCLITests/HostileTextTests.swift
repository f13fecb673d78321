import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// Text an anonymous client or a publisher sends, where it lands (issue 57, defects 14 and 15):
/// the server's log and the release's message.
@Suite("Hostile text")
struct HostileTextTests {
    @Test("a failure report's reason with a forged log line and terminal escapes is logged escaped, on its own line")
    func reasonInTheLog() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(["serve", "--port", "0", "--log-level", "debug"], environment: [:], in: root) { depot in
                let port = try await depot.waitForPort()
                let forged = "disk full\n2026-11-29T00:00:00+0000 critical depot: [DepotServer] Catalog damaged\u{1B}[2J"
                let hex = String(repeating: "ab", count: 32)
                let batch = ReportBatch(reports: [.init(release: hex, install: hex, kind: "failed", reason: forged)])
                let reply = try await RawHTTPConnection.with(port: port) {
                    try await $0.request(
                        "POST",
                        "/v1/reports",
                        headers: [("Content-Type", "application/json")],
                        body: Array(try JSONEncoder().encode(batch))
                    )
                }
                #expect(reply.status == 202, "\(reply.bodyText)")
                #expect(try await depot.stop() == 0)
                let log = depot.log
                #expect(log.contains(#"reason=disk full\u{a}2026-11-29T00:00:00+0000 critical depot"#), "\(log)")
                #expect(!log.contains("\u{1B}"), "no terminal escape reaches the log")
                #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-11-29T00:00:00+0000 critical") }, "\(log)")
            }
        }
    }

    @Test("a release message is limited in bytes: a few characters of thousands of combining marks are refused")
    func messageInBytes() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            let marks = "e" + String(repeating: "\u{301}", count: 4000)
            #expect(marks.count == 1, "one character")
            let refused = try await InProcessCLI.run(["publish", "site", "--server", server, "--message", marks], in: root)
            #expect(refused.status == 1 && refused.errors.contains("message is at most 500 bytes of UTF-8"), "\(refused.errors)")
            let fits = String(repeating: "é", count: 250)
            let taken = try await InProcessCLI.run(["publish", "site", "--server", server, "--message", fits], in: root)
            #expect(taken.status == 0, "\(taken.errors)")
        }
    }
}
