import DepotTestSupport
import Foundation
import Testing

/// Text a publisher sends, where it lands (issue 57, defect 15): the release's message, in
/// process. A client's text in the server's log is ServeCommandTests' (the process's output).
@Suite("Hostile text")
struct HostileTextTests {
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
