import ArgumentParser
import DepotServer
import Logging

extension Depot {
    /// `depot export --to DIR`: writes the published tree as plain files.
    struct Export: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the published tree into a folder any static web server, object store or CDN can serve.",
            discussion: """
                Writes what the folder lacks: files, patches and documents first, made durable, then each \
                channel document, replaced atomically, signed with the server's keys (channels.*). Run it again \
                after each change, and before the channel documents expire, or set export.directory in the \
                server's config to keep a folder in step. Safe while the server runs. With --prune it then removes \
                what retention removed from the store.
                """
        )

        @Option(help: "The folder to write into (made when missing).")
        var to: PathArgument

        @Flag(help: "Then remove from the folder what the catalog no longer stores (what retention removed).")
        var prune = false

        @Flag(help: "Write unsigned channel documents: without the server's signing keys (channels.*) the export refuses.")
        var unsigned = false

        @Flag(help: "Print what was written as JSON.")
        var json = false

        @Option(name: .customLong("data"), help: "Data folder (data.path; default ./data).")
        var dataDirectory: String?

        @Option(help: "JSON config file (or DEPOT_CONFIG): the server's, for its data folder and signing keys.")
        var config: PathArgument?

        func run(in environment: CommandEnvironment) async throws {
            let configuration = try await ServerSettings.configuration(dataDirectory: dataDirectory, configFile: config, in: environment)
            var logger = Logger(label: "depot")
            logger.logLevel = .warning
            try await reportingFailures(in: environment) {
                // A cron job that lost its key variable must not turn a signed folder unsigned:
                // every client that checks signatures would refuse it.
                if configuration.channels.keys.isEmpty, !unsigned {
                    throw CommandFailure(
                        "no signing key: give the server's (channels.signingKeyFile(s), DEPOT_CHANNELS_SIGNING_KEY_FILES or --config), "
                            + "or --unsigned to export unsigned channel documents"
                    )
                }
                let outcome: StaticExport.Outcome
                do {
                    outcome = try await exportPublishedTree(configuration: configuration, to: to.path(in: environment), prunes: prune, logger: logger)
                } catch {
                    throw CommandFailure("cannot export to \(to): \(error)")
                }
                if json {
                    return try environment.printJSON(["releases": outcome.releases, "files": outcome.files, "removed": outcome.removed])
                }
                environment.print(
                    "Exported \(outcome.releases) release(s), \(outcome.files) file(s) written to \(to)"
                        + (prune ? ", \(outcome.removed) file(s) removed" : "")
                )
            }
        }
    }
}
