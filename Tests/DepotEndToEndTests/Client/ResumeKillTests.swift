import DepotServer
import DepotTestSupport
import Foundation
import Testing

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
