import DepotTestSupport
import Foundation
import Testing

/// `scripts/lib/test-tiers`, which `scripts/test` runs: a test file that starts a socket server or
/// spawns one only in the end-to-end target, and at most 20 such files (issue 59). Each rule as a
/// row over a small package of its own, and the package as it is.
@Suite("The test tiers check")
struct TestTiersCheckTests {
    static let root = RepositoryCheck.root
    static let script = root.appendingPathComponent("scripts/lib/test-tiers")

    struct Row: Sendable, CustomStringConvertible {
        /// Where the Swift file goes, under the package.
        var file: String
        var source: String
        /// What the check must print; `nil`: it passes.
        var problem: String?
        var description: String { "\(file): \(source.prefix(50))" }
    }

    @Test(
        "each rule, as a row",
        arguments: [
            // A live server, a relay, nginx or a spawned depot outside the end-to-end target.
            Row(
                file: "Tests/DepotServerTests/A.swift",
                source: "try await LiveServer.with { server in }\n",
                problem: "Tests/DepotServerTests/A.swift: starts a socket server or spawns one (names LiveServer)"
            ),
            Row(file: "Tests/DepotCLITests/B.swift", source: "try await DepotProcess.with([\"serve\"]) { _ in }\n", problem: "names DepotProcess"),
            Row(file: "Client/Tests/DepotClientUnitTests/C.swift", source: "let relay = try FaultyRelay(port: 1)\n", problem: "names FaultyRelay"),
            Row(file: "Tests/DepotClientTests/D.swift", source: "let nginx = try await Nginx.start()\n", problem: "names Nginx"),
            Row(file: "Tests/DepotServerTests/E.swift", source: "let answer = try await runCurl([\"-s\", url])\n", problem: "names runCurl"),
            // The same in the end-to-end target; in process; in a comment.
            Row(file: "Tests/DepotEndToEndTests/Server/A.swift", source: "try await LiveServer.with { server in }\n"),
            Row(file: "Tests/DepotServerTests/F.swift", source: "try await InProcessServer.with { server in }\n"),
            Row(file: "Tests/DepotServerTests/G.swift", source: "// once on a LiveServer; now in process\n/* DepotProcess */\nlet a = 1\n"),
            Row(file: "Tests/DepotServerTests/H.swift", source: "let name = \"LiveServer\"  // a word in a string\n"),
        ]
    )
    func rule(_ row: Row) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Data(row.source.utf8), to: row.file)
            try await RepositoryCheck.expect(Self.script, over: folder, problem: row.problem)
        }
    }

    @Test("21 end-to-end files are over the budget of 20")
    func budget() async throws {
        try await withTemporaryDirectory { folder in
            for index in 1...21 {
                try folder.write(Data("try await LiveServer.with { _ in }\n".utf8), to: "Tests/DepotEndToEndTests/S\(index).swift")
            }
            let check = try await ChildProcess.run(Self.script.path, [folder.path])
            let said = String(decoding: check.standardOutput, as: UTF8.self)
            #expect(check.status == 1 && said.contains("21 end-to-end files, over the budget of 20"), "\(said)")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("Tests/DepotEndToEndTests/S21.swift"))
            #expect(try await ChildProcess.run(Self.script.path, [folder.path]).status == 0)
        }
    }

    @Test("the package passes")
    func tree() async throws {
        let check = try await ChildProcess.run(Self.script.path, [Self.root.path])
        #expect(check.status == 0, "\(String(decoding: check.standardOutput, as: UTF8.self))")
    }
}
