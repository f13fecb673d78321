import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// `depot sync` as a user runs it, run in process against a Depot application in process.
@Suite("depot sync")
struct SyncCommandTests {
    @Test("the summary line, a second sync that changes nothing, and --json")
    func summary() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Fixture.text, to: "site/a.txt")
            try root.write(Fixture.noise, to: "site/b.bin")
            try await InProcessCLI.publish(["site"], to: server, in: root)

            let first = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out"], token: nil, in: root)
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output.contains("2 updated, 0 unchanged: "))
            #expect(first.output.contains("transferred, "))
            #expect(try Data(contentsOf: root.appendingPathComponent("out/a.txt")) == Fixture.text)
            #expect(try Data(contentsOf: root.appendingPathComponent("out/b.bin")) == Fixture.noise)

            let second = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out"], token: nil, in: root)
            #expect(second.output.contains("0 updated, 2 unchanged: 0 B transferred, 0 B saved"))

            let json = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out", "--json"], token: nil, in: root)
            let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
            #expect(report?["channelNotModified"] as? Bool == true)
            #expect(report?["bytesTransferred"] as? Int == 0)
        }
    }

    @Test(
        "--check prints the plan and changes nothing; --download-only stages unseen; --apply switches; a second --apply has nothing",
        arguments: FolderLayout.allCases
    )
    func steps(layout: FolderLayout) async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let sync = ["sync", "--server", server, "--dir", "out", "--layout", layout.rawValue]
            #expect(try await InProcessCLI.run(sync, token: nil, in: root).status == 0)
            try root.write(Data("two\n".utf8), to: "site/a.txt")
            try root.write(Fixture.noise, to: "site/b.bin")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            // Read where the app reads: with release folders, through the link to the current one.
            let content = layout == .inPlace ? "out/" : "out/current/"
            let a = root.appendingPathComponent(content + "a.txt")

            let check = try await InProcessCLI.run(sync + ["--check"], token: nil, in: root)
            #expect(check.status == 0, "\(check.errors)")
            #expect(check.output.contains("release 2 of stable: 2 to fetch, 0 to remove; "), "\(check.output)")
            #expect(check.output.contains("  b.bin: full, "), "\(check.output)")
            let downloaded = try await InProcessCLI.run(sync + ["--download-only"], token: nil, in: root)
            #expect(downloaded.status == 0, "\(downloaded.errors)")
            #expect(downloaded.output.contains("staged: depot sync --apply switches to it"))
            #expect(downloaded.output.contains("2 staged, 0 unchanged") && !downloaded.output.contains("updated"), "\(downloaded.output)")
            #expect(try Data(contentsOf: a) == Data("one\n".utf8), "a download changed the folder")

            // No network: no --server needed.
            let apply = ["sync", "--dir", "out", "--layout", layout.rawValue, "--apply"]
            let applied = try await InProcessCLI.run(apply, token: nil, in: root)
            #expect(applied.status == 0 && applied.output.contains("applied release 2 of stable"), "\(applied.errors)")
            #expect(try Data(contentsOf: a) == Data("two\n".utf8))
            #expect(try Data(contentsOf: root.appendingPathComponent(content + "b.bin")) == Fixture.noise)
            let again = try await InProcessCLI.run(apply, token: nil, in: root)
            #expect(again.status == 5 && again.errors.contains("no release is staged"), "\(again.errors)")
            let upToDate = try await InProcessCLI.run(sync + ["--check"], token: nil, in: root)
            #expect(upToDate.output.contains("up to date: release 2 of stable"), "\(upToDate.output)")
        }
    }

    @Test("a progress bar per file on a terminal, none when piped")
    func progressBar() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Fixture.pseudoRandom(count: 4 << 20, seed: 31), to: "big.bin")
            try await InProcessCLI.publish(["big.bin"], to: server, in: root)
            let piped = try await InProcessCLI.run(["sync", "--server", server, "--dir", "piped"], token: nil, in: root)
            #expect(!piped.output.contains("ETA"))
            // As on a terminal: the command's own isatty(2) is `CommandEnvironment.process`'s.
            let sync = ["sync", "--server", server, "--dir", "terminal"]
            let terminal = try await InProcessCLI.run(sync, token: nil, isTerminal: true, in: root).output
            #expect(terminal.contains("ETA"))
            #expect(terminal.contains("big.bin"))
            #expect(terminal.contains("1 updated, 0 unchanged"))
        }
    }

    /// Stopped as the test says (`CommandEnvironment.stop`); a signal's stop is SyncWatchTests'.
    @Test("--watch syncs again until interrupted")
    func watch() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "a.txt")
            try await InProcessCLI.publish(["a.txt"], to: server, in: root)
            let watched = try await InProcessCLI.running(["sync", "--server", server, "--dir", "out", "--watch", "0.2"], token: nil, in: root) {
                log in
                try root.write(Data("two\n".utf8), to: "a.txt")
                try await InProcessCLI.publish(["a.txt"], to: server, in: root)
                var synced = ""
                var rounds = 0
                for _ in 0..<2_400 where synced != "two\n" || rounds < 2 {
                    try await Task.sleep(for: .milliseconds(50))
                    synced = (try? String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8)) ?? ""
                    rounds = log().components(separatedBy: " updated, ").count - 1
                }
                #expect(synced == "two\n")
                #expect(rounds >= 2, "several rounds ran")
            }
            #expect(watched.status == 0 && watched.log.contains("Stopped by the test."), "\(watched.log)")
        }
    }

    @Test("an unreachable server is one clear line and a non-zero exit")
    func unreachable() async throws {
        try await withTemporaryDirectory { root in
            let result = try await InProcessCLI.run(["sync", "--server", "http://127.0.0.1:9", "--dir", "out"], token: nil, in: root)
            #expect(result.status != 0)
            #expect(result.errors.contains("cannot reach http://127.0.0.1:9"))
            #expect(result.errors.split(separator: "\n").count == 1)
        }
    }
}
