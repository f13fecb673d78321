import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Testing

// `depot sync` killed as a process is, at each point that matters: mid-way through packs and
// blocks ("Syncs killed mid-way"), at random points of a switch ("Crash safety of depot sync"),
// mid-download through a relay ("Resuming downloads after a kill"). The server's own kills are
// CrashSafetyTests.swift's.

/// A `depot sync` killed mid-way, as a process is (its subject: the kill): of small files by pack
/// (`PackSyncTests`), only what was not verified is fetched again; of a file rebuilt from blocks
/// (`DeltaReachTests`), the old copy or the new file is left, and the next sync finishes.
@Suite("Syncs killed mid-way")
struct KilledSyncTests {
    typealias Packs = PackTree
    typealias Deltas = DeltaTable

    @Test("a cold sync fetches small files by pack; killed, the next sync fetches none of what was verified again")
    func killedPackSync() async throws {
        try await DepotProcess.withServer { root, server in
            try Packs.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let whole = try await InProcessCLI.run(["sync", "--server", server, "--dir", "whole", "--json"], token: nil, in: root)
            let wholeReport = try JSONDecoder().decode(SyncReport.self, from: Data(whole.output.utf8))
            #expect(wholeReport.files.filter { $0.outcome == .packed }.count == Packs.files)

            let port = Int(server.split(separator: ":").last!)!
            try await FaultyRelay.with(upstreamPort: port) { relay in
                // Slow packs: the kill lands while some are verified and staged, others on the way.
                relay.slowDownBlobResponses(by: .milliseconds(400))
                let mirror = "http://127.0.0.1:\(relay.port)"
                let staging = root.appendingPathComponent("cold/.depot/staging")
                func verifiedFiles() -> Set<String> {
                    Set(((try? Fixture.files(below: staging)) ?? []).filter { !$0.contains(".") }.map { String($0.split(separator: "/").last!) })
                }
                // Killed once 100 files are verified and staged, however long that takes. No
                // minimum rate: the relay runs in the test process, which a loaded machine can
                // starve for longer than a rate window.
                try await DepotProcess.with(["sync", "--server", mirror, "--dir", "cold", "--minimum-rate", "0"], in: root) { sync in
                    // Hang guard: slowest seen 25.1 s under two busy loops (the whole test).
                    _ = try await poll(every: .milliseconds(5), for: .seconds(600)) { verifiedFiles().count >= 100 || !sync.isRunning ? true : nil }
                    sync.kill()
                    _ = try await sync.waitForExit()
                }
                let verified = verifiedFiles()
                #expect(verified.count >= 100, "the kill came after files were verified and staged")
                #expect(verified.count < Packs.files, "and before all were")

                relay.slowDownBlobResponses(by: nil)
                let again = try await InProcessCLI.run(
                    ["sync", "--server", mirror, "--dir", "cold", "--json", "--minimum-rate", "0"],
                    token: nil,
                    in: root
                )
                #expect(again.status == 0, "\(again.errors)")
                let report = try JSONDecoder().decode(SyncReport.self, from: Data(again.output.utf8))
                let shas = try Dictionary(
                    uniqueKeysWithValues: (0..<Packs.files).map {
                        ("\($0 / 100)/\($0).bin", Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("site/\($0 / 100)/\($0).bin"))))
                    }
                )
                let refetched = report.files.filter { verified.contains(shas[$0.path] ?? "") && $0.bytesTransferred > 0 }
                #expect(refetched.isEmpty, "fetched again though verified: \(refetched.prefix(3).map(\.path))")
                #expect(report.files.filter { $0.outcome == .staged }.count == verified.count)
                for index in [0, 399, 799] {
                    let path = "\(index / 100)/\(index).bin"
                    #expect(
                        try Data(contentsOf: root.appendingPathComponent("cold/\(path)"))
                            == Data(contentsOf: root.appendingPathComponent("site/\(path)"))
                    )
                }
            }
        }
    }

    @Test("killing a sync that rebuilds from blocks at random points leaves the old copy or the new file, and the next sync finishes")
    func killedBlockSync() async throws {
        try await DepotProcess.withServer(environment: Deltas.environment) { root, server in
            try await Deltas.publish(1, root: root, server: server)
            _ = try await Deltas.sync(server, root: root)
            let edited = Deltas.editedByTheApp(try Deltas.synced(root))
            try edited.write(to: root.appendingPathComponent("out/table.db"))
            try await Deltas.publish(2, root: root, server: server)
            let template = root.appendingPathComponent("out")
            /// A folder holding release 1 with the app's copy, as `out` does.
            func fresh(_ name: String) throws -> URL {
                let folder = root.appendingPathComponent(name)
                try FileManager.default.copyItem(at: template, to: folder)
                return folder
            }
            // Timed as the binary, which is what is killed (a sync in the test process, under a
            // full run's load, took many times longer and stretched every round's pause).
            let whole = try await ContinuousClock().measure {
                _ = try fresh("timing")
                #expect(try await DepotProcess.command(["sync", "--server", server, "--dir", "timing"], token: nil, in: root).status == 0)
            }
            let latest = max(300, Int(whole / .milliseconds(1) * 1.5))
            var generator = SystemRandomNumberGenerator()
            for round in 0..<8 {
                let folder = try fresh("round-\(round)")
                try await DepotProcess.with(["sync", "--server", server, "--dir", folder.lastPathComponent], in: root) { sync in
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...latest, using: &generator)))
                    sync.kill()
                    _ = try await sync.waitForExit()
                    let client = DepotClient(server: URL(string: server)!, directory: folder)
                    let (held, bytes) = try client.withCurrentRelease { held in
                        (held?.number, try Data(contentsOf: folder.appendingPathComponent("table.db")))
                    }
                    #expect(
                        held == 1 && bytes == edited || held == 2 && bytes == Deltas.table(version: 2),
                        "round \(round): release \(String(describing: held))"
                    )
                    let again = try await InProcessCLI.run(["sync", "--server", server, "--dir", folder.lastPathComponent], token: nil, in: root)
                    #expect(again.status == 0, "\(again.errors)")
                    #expect(try Data(contentsOf: folder.appendingPathComponent("table.db")) == Deltas.table(version: 2), "round \(round)")
                }
            }
        }
    }
}

/// `kill -9` of `depot sync` at random points of a switch (was part of ReleaseCommandTests).
@Suite("Crash safety of depot sync")
struct SyncKillTests {
    @Test("killing depot sync at random points leaves the folder holding exactly one release, as a reader sees it")
    func killedSync() async throws {
        try await DepotProcess.withServer { root, server in
            // Two releases that differ in every file, so that a switch takes a while.
            for version in 1...2 {
                for index in 0..<150 { try root.write(Data("release \(version), file \(index)\n".utf8), to: "v\(version)/f/\(index).txt") }
                try await InProcessCLI.publish(["v\(version)", "--replace"], to: server, in: root)
            }
            let expected = [1, 2].map { version in
                Dictionary(uniqueKeysWithValues: (0..<150).map { ("f/\($0).txt", "release \(version), file \($0)\n") })
            }
            let folder = root.appendingPathComponent("out")
            // Kills up to half again as late as a whole sync of the binary (what is killed) takes
            // on this machine, under this load: some rounds finish a switch, others are cut at any
            // step of it.
            let whole = try await ContinuousClock().measure {
                let sync = try await DepotProcess.command(["sync", "--server", server, "--dir", "timing"], token: nil, in: root)
                #expect(sync.status == 0)
            }
            let latest = max(400, Int(whole / .milliseconds(1) * 1.5))
            var seen = Set<Int>()
            var generator = SystemRandomNumberGenerator()
            for round in 0..<16 {
                // Alternate the channel between the two releases, and kill the sync that follows.
                #expect(try await InProcessCLI.run(["release", "promote", "\(round % 2 + 1)", "--server", server], in: root).status == 0)
                let pause = Duration.milliseconds(Int.random(in: 0...latest, using: &generator))
                try await DepotProcess.with(["sync", "--server", server, "--dir", "out"], in: root) { sync in
                    try await Task.sleep(for: pause)
                    sync.kill()
                    _ = try await sync.waitForExit()
                }
                let held = try DepotReader.filesOfCurrentRelease(in: folder)
                guard let number = held.release else { continue }
                seen.insert(number)
                #expect(held.files == expected[number - 1], "round \(round): the folder mixes releases or misses files")
            }
            #expect(!seen.isEmpty, "no kill left a release behind: the delays are too short for this machine")
        }
    }
}

/// An app reading a sync folder the way docs/app-developers.md tells it to: through
/// ``DepotClient/withCurrentRelease(_:)``.
enum DepotReader {
    /// The release the folder holds and every file of it, path to text.
    static func filesOfCurrentRelease(in folder: URL) throws -> (release: Int?, files: [String: String]) {
        let client = DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: folder)
        return try client.withCurrentRelease { held in
            var files: [String: String] = [:]
            for path in try Fixture.files(below: folder) where !path.hasPrefix(".depot") {
                files[path] = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            }
            return (held.map { Int($0.number) }, files)
        }
    }
}

/// A `depot sync` process killed mid-download, through a relay on a socket between it and a real
/// server: the process's end is the subject, so it runs as the binary, not in process. The
/// faults that need no process are ``ResumeTests``.
@Suite("Resuming downloads after a kill")
struct ResumeKillTests {
    /// Release 1 synced into `synced` by `depot sync` through a relay; release 2 published;
    /// `depot sync` with `extra` arguments killed once 200,000 bytes of release 2's file are
    /// down (the relay slowed meanwhile). `body` goes on from there, with the relay at full
    /// speed and the sync's arguments.
    static func withDownloadKilled(
        extra: [String],
        _ body: @Sendable (_ folder: URL, _ synced: URL, _ arguments: [String]) async throws -> Void
    ) async throws {
        try await LiveServer.withPublishing { server in
            try await server.publish([("db.bin", Fixture.resumeFirst)])
            try await FaultyRelay.with(upstreamPort: server.port) { relay in
                try await withTemporaryDirectory { folder in
                    let arguments = ["sync", "--server", "http://127.0.0.1:\(relay.port)", "--dir", "synced"]
                    #expect(try await DepotProcess.run(arguments, in: folder).status == 0)
                    let synced = folder.appendingPathComponent("synced")
                    try await server.publish([("db.bin", Fixture.resumeSecond)])

                    relay.slowDownBlobResponses(by: .milliseconds(20))
                    try await DepotProcess.with(arguments + extra, in: folder) { depot in
                        var partial = Fixture.partials(synced).first.map(Fixture.fileSize) ?? 0
                        // Hang guard: slowest seen 7.1 s under two busy loops (the whole test).
                        for _ in 0..<12_000 where partial < 200_000 {
                            try await Task.sleep(for: .milliseconds(10))
                            partial = Fixture.partials(synced).first.map(Fixture.fileSize) ?? 0
                        }
                        #expect(partial >= 200_000, "the download was under way")
                        depot.kill()
                        _ = try await depot.waitForExit()
                    }
                    relay.slowDownBlobResponses(by: nil)
                    try await body(folder, synced, arguments)
                }
            }
        }
    }

    @Test("killing depot sync mid-download never leaves a truncated file; the next sync resumes")
    func killedClient() async throws {
        try await Self.withDownloadKilled(extra: []) { folder, synced, arguments in
            #expect(try Data(contentsOf: synced.appendingPathComponent("db.bin")) == Fixture.resumeFirst, "the old file, whole")
            let again = try await DepotProcess.run(arguments + ["--json"], in: folder)
            #expect(again.status == 0)
            #expect(again.log.contains("\"outcome\":\"resumed\""))
            #expect(try Data(contentsOf: synced.appendingPathComponent("db.bin")) == Fixture.resumeSecond)
        }
    }

    @Test("killing depot sync --download-only mid-download: --apply refuses and changes nothing; the next download resumes, and --apply switches")
    func killedDownloadThenApply() async throws {
        try await Self.withDownloadKilled(extra: ["--download-only"]) { folder, synced, arguments in
            let refused = try await DepotProcess.run(arguments + ["--apply"], in: folder)
            #expect(refused.status == 5 && refused.log.contains("no release is staged"), "\(refused.log)")
            #expect(try Data(contentsOf: synced.appendingPathComponent("db.bin")) == Fixture.resumeFirst, "the old file, whole")

            let again = try await DepotProcess.run(arguments + ["--download-only", "--json"], in: folder)
            #expect(again.status == 0 && again.log.contains("\"outcome\":\"resumed\""), "\(again.log)")
            #expect(try Data(contentsOf: synced.appendingPathComponent("db.bin")) == Fixture.resumeFirst, "a download changed the folder")
            let applied = try await DepotProcess.run(arguments + ["--apply"], in: folder)
            #expect(applied.status == 0, "\(applied.log)")
            #expect(try Data(contentsOf: synced.appendingPathComponent("db.bin")) == Fixture.resumeSecond)
        }
    }
}
