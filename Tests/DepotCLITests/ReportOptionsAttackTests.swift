import DepotTestSupport
import Foundation
import Testing

/// Issue 57, cause 8: the adversarial pass on `depot sync`'s report options (defect 28's
/// surface): each refused as wrong usage (64), before any server is asked, and a password in a
/// refused URL never printed, whatever its form.
@Suite("Report options attacks")
struct ReportOptionsAttackTests {
    struct Row: Sendable, CustomStringConvertible {
        let arguments: [String]
        let says: String
        var description: String { arguments.joined(separator: " ") }
    }

    static let rows: [Row] = [
        // A password typed without a scheme: no URL rule can find it in the text, so the
        // refusal does not quote it (it did, for both options).
        Row(arguments: ["--reports", "--report-server", "user:PASS@origin.example"], says: "--report-server must be an http:// or https:// URL"),
        Row(arguments: ["--reports", "--report-server", "user:PASS@origin.example", "--json"], says: "\"code\":\"usage\""),
        Row(arguments: ["--server", "user:PASS@origin.example"], says: "--server must be an http:// or https:// URL"),
        Row(
            arguments: ["--reports", "--report-server", "ftp://user:PASS@origin.example/"],
            says: "--report-server must be an http:// or https:// URL"
        ),
        Row(arguments: ["--report-server", "http://origin.example/"], says: "add --reports"),
        Row(arguments: ["--reports", "--max-queued-reports", "0"], says: "--max-queued-reports takes 1 or more"),
        Row(arguments: ["--reports", "--max-queued-reports", "-1"], says: "--max-queued-reports"),
        Row(arguments: ["--reports", "--max-queued-reports", "99999999999999999999"], says: "is invalid for '--max-queued-reports"),
    ]

    @Test("each refused as usage, the password never printed", arguments: rows)
    func refused(_ row: Row) async throws {
        try await withTemporaryDirectory { folder in
            var arguments = ["sync", "--dir", "client"] + row.arguments
            if !row.arguments.contains("--server") { arguments += ["--server", "http://127.0.0.1:1/"] }
            let result = try await InProcessCLI.run(arguments, token: nil, in: folder)
            let said = result.output + "\n" + result.errors
            #expect(result.status == 64, "\(said)")
            #expect(said.contains(row.says), "\(said)")
            #expect(!said.contains("PASS"), "\(said)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("client").path), "nothing made")
        }
    }
}
