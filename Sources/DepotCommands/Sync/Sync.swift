import ArgumentParser
import DepotClient
import DepotManifest
import DepotPolicy
import DepotServer
import Foundation
import Synchronization

extension Depot {
    /// `depot sync --server URL --dir DIR [--watch SECONDS]`: keeps a folder in step with a server.
    struct Sync: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download what a Depot server publishes into a folder, fetching only what changed.",
            discussion: """
                A sync polls a channel (a 304 when nothing changed), fetches the release it points to and \
                downloads only the files that changed: as patches when listed, else as gzip when smaller. It \
                resumes interrupted downloads, checks every SHA-256, and switches the folder to the new release \
                all at once. With --trusted-key it refuses a channel document not signed by one of the keys, \
                expired, or older than the last one accepted. With --watch it repeats every SECONDS until SIGINT or \
                SIGTERM: a failed round is one line on standard error and is tried again after a backoff (the \
                interval doubled for each failure in a row, at most --max-backoff, less up to a quarter at random), \
                for good; a round that went well starts the backoff over.

                With --reports, health reports go only to the report server (--report-server; without it the one \
                --server of a sync with no --fallback-server), never to a mirror. Reports it has not taken wait in \
                DIR/.depot/reports.json, at most --max-queued-reports (the oldest dropped); the summary and --json's \
                "reports" say how many wait, why, and how many were dropped. A sync that succeeded exits 0 all the same.

                Exit status: 0 synced; 1 failed (code failed, server, corrupt or io); 2 no server could be reached \
                (network); 3 a channel document was refused (untrusted); 4 this install cannot take the \
                release (incompatible, over-budget, no-space); 5 --apply found nothing to apply or a file in use (not-staged, in-use); \
                64 wrong usage (usage). With --json a failure is one object on standard output, \
                {"error":{"code":"network","message":"…","status":2}}, and nothing on standard error.
                """
        )

        @OptionGroup var server: ServerOptions

        @Option(
            name: .customLong("fallback-server"),
            help: "A mirror or origin serving the same tree, tried in order when the servers before it fail (repeatable)."
        )
        var fallbackServers: [String] = []

        @Option(help: "The folder to keep in step.")
        var dir: PathArgument

        @Option(help: "Sync again after this long (seconds, or 90s, 15m, 1h), until SIGINT or SIGTERM; a failure is logged and tried again.")
        var watch: DurationArgument?

        @Option(help: "With --watch, the longest wait before trying again after failures in a row (seconds, or 90s, 5m).")
        var maxBackoff = DurationArgument(seconds: 300)

        @Option(help: "The channel to follow.")
        var channel = "stable"

        @OptionGroup var trust: TrustOptions

        @Option(help: "Downloads under way at once, over one keep-alive connection pool.")
        var parallel = 4

        @OptionGroup var rate: TransferRateOptions

        @Option(help: "How long a channel, release or page document may take to arrive (seconds, or 90s, 2m).")
        var documentTimeout = DurationArgument(seconds: 120)

        @Flag(help: "Keep local files that left the release.")
        var keepDeleted = false

        @Option(help: "How the folder holds its release: in-place, or release-folders (a folder per release behind the link DIR/current).")
        var layout = FolderLayout.inPlace

        @Flag(help: "Print the report as JSON; a failure too, as one object with its code, message and exit status.")
        var json = false

        @Flag(help: "Report applied or failed releases to the server (POST /v1/reports), for staged rollouts' gates.")
        var reports = false

        @Option(
            help: """
                With --reports, the origin that counts them (or DEPOT_REPORT_SERVER): reports go only there, never to a \
                mirror. Without it, to --server when it is the only server; with --fallback-server, nowhere: they wait, \
                and the summary says so.
                """
        )
        var reportServer: String?

        @Option(help: "With --reports, the most reports kept while the report server cannot take them; then the oldest are dropped, and counted.")
        var maxQueuedReports = 100

        @Option(help: "The app's version (as 2.3.1): a release needing a newer one is not taken, but the newest earlier one it can use.")
        var clientVersion: String?

        @Flag(help: "Only check: print the release, the files that change, the bytes to transfer and the space needed; change nothing.")
        var check = false

        @Flag(help: "Download and verify the release, but do not switch the folder to it (see --apply).")
        var downloadOnly = false

        @Flag(help: "Switch the folder to the release --download-only staged: no network, so no --server needed.")
        var apply = false

        @Flag(help: "Let this sync drop or replace the --trusted-key or --trusted-root the folder was synced with.")
        var replaceTrust = false

        /// Checks the options; with `--json`, ``run(in:)`` checks them, where the output is: a
        /// refusal is one ``FailureDocument`` (code `usage`) on standard output and exit status 64,
        /// as every other failure.
        func validate() throws {
            guard !json else { return }
            try checkOptions()
        }

        /// The longest `--watch` or `--max-backoff`, in seconds (a year and a day): a wait is
        /// counted in milliseconds of an Int64, which a longer one would overflow.
        static let longestWait: Double = 366 * 86_400

        func checkOptions() throws {
            if [check, downloadOnly, apply].filter({ $0 }).count > 1 { throw ValidationError("give one of --check, --download-only and --apply") }
            if watch != nil, check || downloadOnly || apply {
                throw ValidationError("--watch syncs whole: not with --check, --download-only or --apply")
            }
            if keepDeleted, layout == .releaseFolders {
                throw ValidationError("--keep-deleted keeps files in place: not with --layout release-folders")
            }
            guard (1...64).contains(parallel) else { throw ValidationError("--parallel takes 1 to 64") }
            try rate.check()
            guard maxBackoff.seconds > 0, maxBackoff.seconds <= Self.longestWait else {
                throw ValidationError("--max-backoff takes a duration over 0 and at most 366d, as 90s or 5m")
            }
            if let watch, watch.seconds > Self.longestWait { throw ValidationError("--watch takes at most 366d") }
            try checkReportOptions()
            if let clientVersion, ClientVersion(clientVersion) == nil {
                throw ValidationError("--client-version takes one to four numbers separated by dots, as 2.3.1")
            }
        }

        func run(in environment: CommandEnvironment) async throws {
            if json {
                do {
                    try checkOptions()
                } catch let usage as ValidationError {
                    writeLine(try jsonLine(FailureDocument(usage)), in: environment)
                    throw ExitCode.validationFailure
                }
            }
            try await reportingFailures(json: json, in: environment) {
                try checkFolder(in: environment)
                let servers = try serverURLs(in: environment)
                var configuration = DepotClient.Configuration(
                    channel: channel,
                    trustedKeys: trust.trustedKeys,
                    trustedRoot: try trust.rootDocument(in: environment),
                    removesDeletedFiles: !keepDeleted,
                    minimumTransferRate: rate.minimumRate,
                    transferRateWindow: rate.rateWindow.seconds,
                    documentTimeout: documentTimeout.seconds,
                    parallelDownloads: parallel,
                    sendsReports: reports,
                    clientVersion: clientVersion.flatMap(ClientVersion.init)
                )
                configuration.layout = layout
                configuration.replacesTrust = replaceTrust
                configuration.reportServer = try reportServerURL(in: environment)
                configuration.reportQueueCapacity = maxQueuedReports
                let client = DepotClient(servers: servers, directory: dir.url(in: environment), configuration: configuration)
                guard let watch else {
                    do {
                        return try await syncOnce(client, in: environment)
                    } catch let error as SyncError {
                        throw CommandFailure(error)
                    }
                }
                await watching(client, every: watch, in: environment)
            }
        }

        /// `--server`, then each `--fallback-server`. `--apply` needs none: it renames what a
        /// download staged and sends nothing (a report it makes waits for the next sync), so
        /// without one the client is given a name that resolves nowhere (RFC 2606's `.invalid`),
        /// never asked. The client takes each as a folder, with or without its trailing slash.
        func serverURLs(in environment: CommandEnvironment) throws -> [URL] {
            if apply, server.named(in: environment) == nil, let nowhere = URL(string: "http://apply.invalid/") { return [nowhere] }
            return try ([try server.baseURL(in: environment)] + fallbackServers.map(ServerOptions.baseURL(of:))).map { text in
                guard let url = URL(string: text) else { throw CommandFailure("--server \(text) is not a URL.", kind: .usage) }
                return url
            }
        }

        /// A `--dir` that names a file, or whose parent folder is missing (a typo), is refused in
        /// one line, before anything is made; a new one is said on standard error (without
        /// `--json`), since a typo there downloads a whole release.
        func checkFolder(in environment: CommandEnvironment) throws {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir.path(in: environment), isDirectory: &isFolder) {
                guard isFolder.boolValue else { throw CommandFailure("--dir \(dir) is a file, not a folder") }
                return
            }
            if apply {
                throw CommandFailure("--dir \(dir) does not exist, so nothing is staged there: download first.", kind: FailureKind(.notStaged))
            }
            let parent = dir.url(in: environment).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: parent) else {
                throw CommandFailure("--dir \(dir): its parent folder \(parent) does not exist (a typo?); make it first")
            }
            // Said to a person; a program reading --json has the report. A check makes nothing.
            guard !json, !check else { return }
            environment.printError("--dir \(dir) is new: making it, and fetching the whole release into it")
        }

        func syncOnce(_ client: DepotClient, in environment: CommandEnvironment) async throws {
            if check { return try await printCheck(client, in: environment) }
            if apply {
                let release = try client.apply()
                return writeLine("applied release \(release.number) of \(release.channel)", in: environment)
            }
            let bars = ProgressBars(isEnabled: !json && environment.isTerminal, errors: environment.errors)
            let report: SyncReport
            do {
                // No progress asked when no bar shows it: asking costs the plan's read-ahead.
                let progress: (@Sendable (SyncProgress) -> Void)? = bars.isEnabled ? { @Sendable in bars.update($0) } : nil
                report = try await downloadOnly ? client.download(progress: progress) : client.sync(progress: progress)
                bars.finish()
            } catch let error as SyncError {
                bars.finish()
                // Files failed: the report attached names each, and is printed as any other.
                guard let failed = error.report else { throw error }
                report = failed
            } catch {
                bars.finish()
                throw error
            }
            if json {
                try writeJSON(report, in: environment)
            } else {
                for file in report.files where file.outcome == .failed {
                    environment.printError(printable("failed \(file.path): \(file.error ?? "")"))
                }
                writeLine(Self.summary(report), in: environment)
                if downloadOnly, report.failedCount == 0, !report.files.isEmpty {
                    writeLine("staged: depot sync --apply switches to it", in: environment)
                }
            }
            if report.failedCount > 0 {
                // Under --json the report, which names each failure, is the one object printed.
                var failure = CommandFailure("\(report.failedCount) file\(report.failedCount == 1 ? "" : "s") could not be synced")
                failure.isReported = json
                throw failure
            }
        }

        /// `--check`: what a sync would do, as a line (or the plan as JSON).
        func printCheck(_ client: DepotClient, in environment: CommandEnvironment) async throws {
            let plan = try await client.check()
            if json {
                return try writeJSON(plan, in: environment)
            }
            let release = plan.release.map { "release \($0.number) of \($0.channel)" } ?? "no release"
            guard !plan.isUpToDate else { return writeLine("up to date: \(release)", in: environment) }
            let bound = plan.files.contains(where: \.isBound) ? "at most " : ""
            writeLine(
                "\(release)\(plan.critical ? " (critical)" : ""): \(plan.files.count) to fetch, \(plan.removals.count) to remove; "
                    + "\(bound)\(ByteCountText(plan.transferBytes)) to transfer, \(ByteCountText(plan.requiredBytes)) of space needed",
                in: environment
            )
            for file in plan.files {
                writeLine(
                    "  \(file.path): \(file.way.rawValue), \(file.isBound ? "at most " : "")\(ByteCountText(file.expectedBytes))",
                    in: environment
                )
            }
        }

        /// `--json`: `value` as one line of JSON, keys sorted.
        func writeJSON(_ value: some Encodable, in environment: CommandEnvironment) throws {
            writeLine(try jsonLine(value), in: environment)
        }

        /// Writes a line to standard output at once: with --watch the process runs on, and each
        /// round's line must reach a log file or pipe now, not when a buffer fills. The URLs in it
        /// (a report's servers, a failover's error) are named without their credentials.
        func writeLine(_ line: String, in environment: CommandEnvironment) {
            environment.print(printable(line))
        }

        /// `3 updated, 12 unchanged: 412 KB transferred, 24.8 MB saved; release 4 of stable, signature verified;
        /// 2 by patch, 1 from blocks; rollout: in (bucket 7 is below 10%)`: how the updated files
        /// arrived, and during a rollout which side the install is on.
        static func summary(_ report: SyncReport) -> String {
            var parts = report.staged == nil ? ["\(report.updatedCount) updated"] : ["\(report.stagedCount) staged"]
            parts.append("\(report.unchangedCount) unchanged")
            if report.removedCount > 0 { parts.append("\(report.removedCount) removed") }
            if report.failedCount > 0 { parts.append("\(report.failedCount) failed") }
            let release = report.release.map { "release \($0.number) of \($0.channel)" } ?? "no release"
            let root = report.release?.root.map { " under root \($0)" } ?? ""
            let signature = report.signature == .verified ? "signature verified\(root)" : "signature not checked (no --trusted-key)"
            let ways: [(SyncReport.Outcome, String)] = [
                (.delta, "by patch"), (.blocks, "from blocks"), (.packed, "in packs"), (.brotli, "as brotli"), (.zstd, "as zstd"),
                (.gzip, "as gzip"), (.full, "whole"), (.resumed, "resumed"),
                (.staged, "staged before"),
            ]
            let arrivals = ways.compactMap { outcome, how in
                let count = report.files.filter { $0.outcome == outcome }.count
                return count > 0 ? "\(count) \(how)" : nil
            }
            let rollout = report.rollout.flatMap { side -> String? in
                switch side.side {
                case .noRollout: nil
                case .rolledOut: "; rollout: in (\(side.reason))"
                case .outside: "; rollout: out (\(side.reason))"
                case .fallback: "; \(side.reason)"
                }
            }
            let critical = report.critical ? "; critical" : ""
            let failovers =
                report.failovers.isEmpty ? "" : "; from \(report.server ?? "") after \(report.failovers.map(\.server).joined(separator: ", ")) failed"
            return parts.joined(separator: ", ")
                + ": \(ByteCountText(report.bytesTransferred)) transferred, \(ByteCountText(report.bytesSaved)) saved; \(release), \(signature)"
                + (arrivals.isEmpty ? "" : "; " + arrivals.joined(separator: ", ")) + (rollout ?? "") + critical + failovers
                + reportsSummary(report)
        }
    }
}

/// One progress bar for the file being downloaded.
final class ProgressBars: Sendable {
    let isEnabled: Bool
    /// Where the bars are drawn (standard error).
    let errors: TextWriter
    private let current = Mutex<(path: String, bar: ProgressBar)?>(nil)

    init(isEnabled: Bool, errors: TextWriter) {
        self.isEnabled = isEnabled
        self.errors = errors
    }

    func update(_ progress: SyncProgress) {
        guard isEnabled, let path = progress.file, progress.fileBytesExpected > 0 else { return }
        let bar: ProgressBar = current.withLock { current in
            if let current, current.path == path { return current.bar }
            let bar = ProgressBar(label: path, total: progress.fileBytesExpected, isEnabled: true, errors: errors)
            current = (path, bar)
            return bar
        }
        bar.set(done: progress.fileBytesDone)
    }

    func finish() {
        current.withLock { $0?.bar }?.finish()
    }
}

extension FolderLayout: @retroactive ExpressibleByArgument {}
