import DepotClient
import DepotTestSupport
import Foundation
import GRDB
import Testing

/// Issue 41: the example app (`depot-catalog-example`) against the real server and real SQLite
/// files. It keeps its catalog open in WAL mode and queries it without pause; each release
/// published is checked for, downloaded in the background and applied between two queries.
@Suite("The example app")
struct CatalogExampleTests {
    static var executable: URL { DepotProcess.executable.deletingLastPathComponent().appendingPathComponent("depot-catalog-example") }

    /// The release folders of the folder `out`, lock files aside.
    static func trees(_ root: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out/.depot/trees").path)) ?? [])
            .filter { !$0.hasSuffix(".lock") && !$0.hasSuffix(".links") }
    }

    @Test(
        "20 releases, each applied between two queries of an app that holds its catalog open: never a mix, every reopen the release applied, no old release folder left once closed",
        arguments: FolderLayout.allCases
    )
    func twentyReleases(layout: FolderLayout) async throws {
        try await DepotProcess.withServer { root, server in
            func publish(_ release: Int) async throws {
                try root.write(try Fixture.catalog(release: release, rows: 2000), to: "site/catalog.sqlite")
                try await InProcessCLI.publish(["site"], to: server, in: root)
            }
            try await publish(1)
            try await DepotProcess.launch(
                Self.executable.path,
                // Checks every 20 ms; no minimum rate: the test's server shares a loaded machine.
                ["--server", server, "--dir", "out", "--until", "21", "--every", "0.02", "--minimum-rate", "0", "--layout", layout.rawValue],
                environment: nil,
                in: root
            ) { app in
                for release in 2...21 {
                    try await publish(release)
                    // The app applies each before the next is published (a bound that only guards a hang).
                    // Hang guard: slowest seen 54.7 s under two busy loops (the whole test).
                    let applied = try await poll(for: .seconds(300)) { app.log.contains("applied release \(release) ") ? true : nil }
                    try #require(applied != nil, "release \(release) was not applied: \(app.log)")
                    // The app closed the old release's catalog: its folder is gone (nothing new is
                    // published yet, so nothing is being downloaded).
                    if layout == .releaseFolders { #expect(Self.trees(root).count == 1, "\(Self.trees(root))") }
                }
                // Hang guard: slowest seen 54.7 s under two busy loops (the whole test).
                #expect(try await app.waitForExit(timeout: .seconds(300)) == 0, "\(app.log)")
                let lines = app.log.split(separator: "\n").filter { $0.hasPrefix("applied release ") }
                #expect(lines.count == 20, "\(app.log)")
                // Queries ran between every two applies.
                let queries = lines.compactMap { $0.split(separator: " ").dropFirst(4).first.flatMap { Int($0) } }
                #expect(queries.count == 20 && zip(queries, queries.dropFirst()).allSatisfy { $0 < $1 }, "\(lines)")
                #expect(!app.log.contains("mix"), "\(app.log)")
            }
            // What the app left: release 21 exactly, no log of a closed connection, nothing staged.
            let content = layout == .inPlace ? "out" : "out/current"
            let queue = try DatabaseQueue(path: root.appendingPathComponent(content + "/catalog.sqlite").path)
            let releases = try await queue.read { try String.fetchAll($0, sql: "SELECT DISTINCT substr(body, 1, 10) FROM item") }
            try queue.close()
            #expect(releases == ["release 21"])
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(content).path)
            #expect(Set(names).subtracting([".depot"]) == ["catalog.sqlite"], "\(names)")
            if layout == .releaseFolders { #expect(Self.trees(root).count == 1, "\(Self.trees(root))") }
            #expect(try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent("out/.depot/staging").path).isEmpty)
        }
    }
}
