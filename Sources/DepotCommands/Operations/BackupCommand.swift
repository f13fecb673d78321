import ArgumentParser
import DepotFiles
import DepotServer
import DepotStore
import Foundation

extension Depot {
    /// `depot backup --to DIR`: an online copy of the data folder.
    struct Backup: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the data folder while the server runs: the catalog, and every blob, hard-linked where possible.",
            discussion: """
                Safe while the server serves and publishes. Run it again into the same folder: it links only the new \
                blobs and removes those the data folder no longer has. The copy holds no key: keep the signing and \
                root keys apart. depot restore puts it back.
                """
        )

        @Option(help: "The folder to copy into (made when missing).")
        var to: PathArgument

        @Option(name: .customLong("data"), help: "Data folder (data.path; default ./data).")
        var dataDirectory: String?

        @Option(help: "JSON config file (or DEPOT_CONFIG): the server's, for its data folder.")
        var config: PathArgument?

        @Flag(help: "Print what was done as JSON.")
        var json = false

        func run(in environment: CommandEnvironment) async throws {
            let configuration = try await ServerSettings.configuration(dataDirectory: dataDirectory, configFile: config, in: environment)
            try await reportingFailures(in: environment) {
                let data = URL(fileURLWithPath: configuration.dataDirectory)
                guard (try? ContainedFolder(root: data.path, creating: false).contains("catalog.sqlite")) == true else {
                    throw CommandFailure("\(data.path) holds no catalog.sqlite: name the server's data folder with --data DIR or --config FILE")
                }
                let outcome: DataBackup.Outcome
                do {
                    outcome = try await DataBackup.backup(data: data, to: to.url(in: environment))
                } catch {
                    throw CommandFailure("cannot back up to \(to): \(error)")
                }
                if json {
                    environment.print(
                        #"{"blobs":\#(outcome.blobs),"linked":\#(outcome.linked),"copied":\#(outcome.copied),"removed":\#(outcome.removed)}"#
                    )
                } else {
                    environment.print(
                        "Backed up to \(to): \(outcome.blobs) blob(s), \(outcome.linked) linked and \(outcome.copied) copied this run, \(outcome.removed) removed"
                    )
                }
            }
        }
    }

    /// `depot restore --from DIR --data DATA`: a backup checked whole, then put in place.
    struct Restore: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a backup whole (the catalog's integrity, every blob against its SHA-256), then make it a data folder.",
            discussion: """
                DATA must not exist, or be empty. Each channel's serial is raised by --serial-margin, so that the next \
                document the server signs is newer than any it signed after the backup: no client refuses it as a replay. \
                Clients holding a release published after the backup go back to the release their channel names in it \
                (the restore says which); the next release is numbered --release-margin past the backup's newest, and \
                the restore is recorded in the audit trail.
                """
        )

        @Option(help: "The backup folder (depot backup --to).")
        var from: PathArgument

        @OptionGroup var target: RebuildOptions

        @Flag(help: "Print what was done as JSON.")
        var json = false

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let outcome: DataRestore.Outcome
                do {
                    outcome = try await DataRestore.restore(
                        from: from.url(in: environment),
                        to: target.data.url(in: environment),
                        serialMargin: target.serialMargin,
                        releaseMargin: target.releaseMargin,
                        now: Int64(Date().timeIntervalSince1970)
                    )
                } catch {
                    throw CommandFailure("cannot restore \(from): \(error)")
                }
                if json {
                    let next = outcome.summary?.nextRelease ?? 0
                    environment.print(#"{"blobs":\#(outcome.blobs),"channels":\#(outcome.channels),"nextRelease":\#(next)}"#)
                } else {
                    environment.print(
                        "Restored \(from) into \(target.data): \(outcome.blobs) blob(s) checked, \(outcome.channels) channel(s), serials raised by \(target.serialMargin)"
                    )
                    for line in outcome.summary.map({ RebuildOptions.lines(describing: $0, copy: "the backup") }) ?? [] { environment.print(line) }
                }
            }
        }
    }
}
