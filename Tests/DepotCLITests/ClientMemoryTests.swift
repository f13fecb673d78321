import DepotTestSupport
import Foundation
import Testing

/// The client's memory follows the change, not the catalog (issue 43): a cold sync of 100,000
/// files, run as `depot sync` under `/usr/bin/time`, against the same command refused at once.
/// A benchmark with a hard limit, not a wall-clock judgement: the peak resident size is the
/// kernel's (`ru_maxrss`).
@Suite("Client memory at 100,000 files")
struct ClientMemoryTests {
    static let token = "client-memory-token"

    /// What `depot sync` may add to its resident peak for 100,000 entries, over the same command
    /// refused at once (the executable's own pages: 41 MiB for the static build users deploy):
    /// issue 58's bound. The sync holds a batch of pages at a time, not every entry
    /// (``SyncAttempt/runPaged(_:from:)``); 78–93 MiB before, 181 MiB before issue 43's work:
    /// docs/performance.md has the figures.
    static let growthLimit = 64 << 20

    /// Runs a command (its words after `$0`, none with a space) on a terminal of its own
    /// (`script`'s): `depot sync` then shows progress bars, and asks for the progress that needs
    /// an estimate first. `time` counts the peak of the processes it waits for too.
    static let onTerminal = ["/bin/sh", "-c", #"exec /usr/bin/script -qec "$0 $*" /dev/null"#]

    /// The highest resident size, in bytes, of `depot` with `arguments` (on a terminal of its
    /// own when `terminal`), and what it printed.
    static func peak(_ arguments: [String], terminal: Bool = false, in root: URL) async throws -> (bytes: Int, log: String) {
        let wrapper = ["/usr/bin/time", "-f", "peak-kib %M"] + (terminal ? onTerminal : [])
        return try await DepotProcess.with(arguments, environment: ["MALLOC_ARENA_MAX": "2"], in: root, wrapper: wrapper) {
            depot in
            // Hang guard: slowest seen 245 s under two busy loops (the whole test).
            _ = try await depot.waitForExit(timeout: .seconds(1800))
            let log = depot.log
            // time's line, the last (a terminal's "\r\n" is one Character: no split there).
            let mark = try #require(log.range(of: "peak-kib ", options: .backwards), "\(log.suffix(2_000))")
            return (try #require(Int(String(log[mark.upperBound...].prefix { $0.isNumber }))) * 1024, log)
        }
    }

    @Test(
        "a cold sync of 100,000 files (empty, so the entries are what it holds) grows the client's peak RSS by less than the limit, and so does one on a terminal, with the progress bars and the estimate they need"
    )
    func coldSyncOf100000() async throws {
        try await withTemporaryDirectory { root in
            // Made by a child process: 100,000 files made here would hold one of the test
            // process's few threads for the whole time, and starve every other test.
            let make = try await ChildProcess.run(
                "/bin/sh",
                [
                    "-c",
                    #"cd "$1" && seq 0 199 | awk '{ printf "site/assets/%04d\n", $1 }' | xargs mkdir -p && seq 0 99999 | awk '{ printf "site/assets/%04d/%d.bin\n", int($1 / 500), $1 }' | xargs touch"#,
                    "sh", root.path,
                ]
            )
            #expect(make.status == 0)
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: ["DEPOT_PUBLISH_TOKENS": Self.token, "DEPOT_LOG_REQUESTS": "false"],
                in: root
            ) { depot in
                let server = "http://127.0.0.1:\(try await depot.waitForPort())"
                let publish = try await DepotProcess.run(
                    ["publish", "site", "--server", server, "--json"],
                    environment: ["DEPOT_TOKEN": Self.token],
                    in: root,
                    // Hang guard: slowest seen 245 s under two busy loops (the whole test).
                    timeout: .seconds(1800)
                )
                #expect(publish.status == 0, "\(publish.log.suffix(1_000))")
                // The same command, refused at once: the executable's and the libraries' pages.
                let refused = try await Self.peak(["sync", "--server", "http://127.0.0.1:1", "--dir", "refused"], in: root)
                #expect(refused.log.contains("Error:"))
                let sync = try await Self.peak(["sync", "--server", server, "--dir", "cold"], in: root)
                #expect(sync.log.contains("100000 updated"), "\(sync.log.suffix(2_000))")
                let count = try await ChildProcess.run("/bin/sh", ["-c", #"find "$1/cold/assets" -type f | wc -l"#, "sh", root.path])
                #expect(String(decoding: count.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "100000")
                let growth = sync.bytes - refused.bytes
                print("depot sync of 100,000 files: peak \(sync.bytes >> 20) MiB, \(growth >> 20) MiB over \(refused.bytes >> 20) MiB refused")
                #expect(growth < Self.growthLimit, "the sync's peak grew by \(growth >> 20) MiB over the refused one's \(refused.bytes >> 20) MiB")

                // With progress, as an app's updater asks: estimated a batch of pages at a time too.
                let shown = try await Self.peak(["sync", "--server", server, "--dir", "shown"], terminal: true, in: root)
                #expect(shown.log.contains("100000 updated"), "\(shown.log.suffix(2_000))")
                let shownGrowth = shown.bytes - refused.bytes
                print("depot sync of 100,000 files on a terminal: peak \(shown.bytes >> 20) MiB, \(shownGrowth >> 20) MiB over the refused one")
                #expect(shownGrowth < Self.growthLimit, "the sync with progress grew by \(shownGrowth >> 20) MiB")
            }
        }
    }
}
