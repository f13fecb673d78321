import ArgumentParser
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation

extension Depot {
    /// `depot import --from DIR|URL --data DATA`: a data folder rebuilt from a published tree.
    struct Import: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild a data folder from an export, a depot mirror folder or a static mirror's URL, every signature and SHA-256 checked.",
            discussion: """
                The tree is copied as depot mirror copies it (into .DATA.tree beside DATA, where a run the network \
                interrupted goes on), then the releases it holds, their files and patches, the channels and the roots become \
                DATA, by one rename. Each channel's serial is its document's plus --serial-margin, so that the next \
                document the server signs is newer than any it signed: no client refuses it as a replay. What the \
                tree never held is lost: releases retention removed, channel history, reports, the audit trail. \
                The keys are never in a tree: give the server its channel key(s) again. A URL lists no channels: name \
                each with --channel (a folder source imports every channel it holds). The next release is numbered \
                --release-margin past the tree's newest; the import is recorded in the new audit trail. \
                A source may be behind its origin (a rollback it never saw): with several --from, each channel comes \
                from the source whose document has the highest serial, and --not-before-serial CHANNEL=N refuses a \
                channel whose document is older than serial N (the origin's last, as a client or a backup recorded it).
                """
        )

        @OptionGroup var source: MirrorSourceOptions

        @OptionGroup var target: RebuildOptions

        @Option(
            help: """
                CHANNEL=N: refuse to import CHANNEL from a document with a serial below N, the last serial the origin \
                signed (a client's `depot status`, a backup): an older one may name a release the origin withdrew. Repeatable.
                """
        )
        var notBeforeSerial: [SerialFloor] = []

        @Flag(help: "Print what was done as JSON.")
        var json = false

        func validate() throws {
            // The rebuilt origin signs what it imports with the real keys: nothing unchecked.
            if source.withoutSignatureChecks {
                throw ValidationError("depot import signs what it imports: give --trusted-root or --trusted-key, not --without-signature-checks")
            }
            // A URL lists no channels: importing the default one alone would lose the others
            // without a word, so each is named.
            if source.channels.isEmpty, source.from.contains(where: { $0.contains("://") }) {
                throw ValidationError(
                    "a URL lists no channels: name each channel to import with --channel (for example --channel stable --channel beta)"
                )
            }
        }

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let destination = target.data.url(in: environment)
                do {
                    try DataImport.checkDestination(destination)
                } catch let error as StoreError {
                    throw CommandFailure(error.message)
                } catch {
                    throw CommandFailure("cannot import into \(target.data): \(error)")
                }
                let tree = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).tree")
                let (_, mirrored) = try await source.copy(into: PathArgument(tree.path), newestFirst: true, in: environment)
                try SerialFloor.check(mirrored, against: notBeforeSerial)
                let outcome: DataImport.Outcome
                do {
                    outcome = try await DataImport.build(
                        tree: tree,
                        channels: mirrored.map(\.document),
                        data: destination,
                        serialMargin: target.serialMargin,
                        releaseMargin: target.releaseMargin,
                        now: HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970))
                    )
                } catch {
                    // What the copy holds cannot be imported: it goes, so that the next run
                    // starts from the source again (a copy cut short by the network is kept).
                    DataImport.remove(tree: tree)
                    throw CommandFailure("cannot import into \(target.data): \(error)")
                }
                DataImport.remove(tree: tree)
                if json {
                    struct Taken: Encodable { let channel: String, release: Int64, serial: Int64, expires: String }
                    struct Imported: Encodable {
                        let releases: Int, files: Int, channels: Int, roots: Int, patchesNotHeld: Int, serialMargin: Int64
                        let taken: [Taken], nextRelease: Int64
                    }
                    return try environment.printJSON(
                        Imported(
                            releases: outcome.releases,
                            files: outcome.blobs,
                            channels: outcome.channels,
                            roots: outcome.roots,
                            patchesNotHeld: outcome.patchesNotHeld,
                            serialMargin: target.serialMargin,
                            taken: mirrored.map {
                                Taken(channel: $0.channel, release: $0.document.number, serial: $0.document.serial, expires: $0.document.expires)
                            },
                            nextRelease: outcome.summary?.nextRelease ?? 0
                        )
                    )
                }
                environment.print(
                    "Imported into \(target.data): \(outcome.releases) release(s), \(outcome.blobs) file(s), \(outcome.channels) channel(s), serials raised by \(target.serialMargin)"
                )
                for taken in mirrored {
                    environment.print(
                        "  \(taken.channel): release \(taken.document.number), document serial \(taken.document.serial), expires \(taken.document.expires)"
                    )
                }
                environment.print("A source may be behind its origin: check each channel above is where the origin last pointed it.")
                for line in outcome.summary.map({ RebuildOptions.lines(describing: $0, copy: "the source") }) ?? [] { environment.print(line) }
                if outcome.roots > 0 {
                    environment.print("\(outcome.roots) root(s) in \(target.data)/roots: set channels.rootDirectory to it (or copy them into yours)")
                }
                environment.print("Give the server its channel key(s): a tree holds none")
            }
        }
    }
}
