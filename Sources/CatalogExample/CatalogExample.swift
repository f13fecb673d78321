import ArgumentParser
import DepotClient
import Foundation
import GRDB

/// An app as Depot's users write one, small enough to read: it keeps its SQLite catalog open
/// (WAL mode, the system SQLite through GRDB) and queries it without pause, while a background
/// task checks for a new release and downloads it; between two queries, once a download is
/// staged, it applies the release (renames only, in a moment) and opens the catalog again.
/// - With release folders (`--layout release-folders`), the catalog stays open across the
///   apply: the app opens the new release's catalog, then closes the old one, whose folder goes.
/// - In place (the default), it closes the catalog before the apply: a switch never replaces a
///   database SQLite has open.
///
/// The catalog it expects: a table `item(id, body)` whose every `body` starts with the release
/// it is of (`release 7, …`). Each query checks that every row is of the release the folder
/// holds: one row of another release is a mix, and the program stops with exit status 1.
@main
struct CatalogExample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depot-catalog-example",
        abstract: "Query a synced SQLite catalog without pause, and apply each new release between two queries."
    )

    @Option(help: "The Depot server.")
    var server: String

    @Option(help: "The folder to keep in step.")
    var dir: String

    @Option(help: "The catalog's path in the release.")
    var catalog = "catalog.sqlite"

    @Option(help: "Stop once this release is applied.")
    var until: Int64

    @Option(help: "Seconds between two checks for a new release.")
    var every: Double = 60

    @Option(help: "Bytes a second a transfer must average (DepotClient.Configuration.minimumTransferRate).")
    var minimumRate = 1024

    @Option(help: "How the folder holds its release: in-place or release-folders.")
    var layout = FolderLayout.inPlace

    func run() async throws {
        guard let url = URL(string: server) else { throw ValidationError("invalid --server") }
        let folder = URL(fileURLWithPath: dir)
        var configuration = DepotClient.Configuration(minimumTransferRate: minimumRate)
        configuration.layout = layout
        let client = DepotClient(server: url, directory: folder, configuration: configuration)
        if client.currentRelease == nil { _ = try await client.sync() }
        let (until, catalog, layout) = (until, catalog, layout)
        // Checks every `every` seconds (and as often after a failure), applies when the app says.
        let period = Duration.milliseconds(Int64(every * 1000))
        let updater = DepotUpdater(
            client: client,
            configuration: .init(interval: period, retryDelay: period, maximumRetryDelay: period, jitter: 0, policy: .applyOnSignal)
        )

        try await withThrowingTaskGroup(of: Void.self) { group in
            // In the background: check, and download what is new; then wait for the app to apply
            // (the updater's state says when a release is staged: no flag of the app's own).
            group.addTask { await updater.run() }
            // The app: queries without pause, and applies between two of them.
            group.addTask {
                // The release held open: its files stay as they are until it is closed.
                var open = try Self.open(client)
                var database = try DatabaseQueue(path: open.url(for: catalog).path)
                var queries = 0
                while true {
                    try Self.query(database, holding: open.release.number)
                    queries += 1
                    guard case .ready = updater.state else { continue }
                    if layout == .inPlace {
                        try database.close()
                        open.close()
                    }
                    // Waits for a check under way: one at a time, each holds the folder.
                    let release = try await updater.applyNow()
                    let (old, oldOpen) = (database, open)
                    open = try Self.open(client)
                    database = try DatabaseQueue(path: open.url(for: catalog).path)
                    if layout == .releaseFolders {
                        // The old release's catalog was open across the apply; its folder goes now.
                        try old.close()
                        oldOpen.close()
                    }
                    try Self.query(database, holding: release.number)
                    // Written at once, not when a buffer fills: whoever watches the app sees it now.
                    FileHandle.standardOutput.write(
                        Data("applied release \(release.number) after \(queries) queries: every row of release \(release.number)\n".utf8)
                    )
                    if release.number >= until { return }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// The release the folder holds, open.
    static func open(_ client: DepotClient) throws -> OpenRelease {
        guard let open = try client.openCurrentRelease() else { throw Mix(description: "the folder holds no release") }
        return open
    }

    /// Runs the app's query, and refuses a catalog any row of which is of another release than
    /// `release`.
    static func query(_ database: DatabaseQueue, holding release: Int64) throws {
        let releases = try database.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT substr(body, 1, instr(body, ',') - 1) FROM item")
        }
        guard releases == ["release \(release)"] else {
            throw Mix(description: "a mix: the catalog of release \(release) holds rows of \(releases.joined(separator: ", "))")
        }
    }
}

/// A query saw rows of two releases, or of another release than the folder holds.
struct Mix: Error, CustomStringConvertible {
    let description: String
}

extension FolderLayout: @retroactive ExpressibleByArgument {}
