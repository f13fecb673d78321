import ArgumentParser
import DepotClient
import DepotStore
import Foundation
import NIOCore

extension Depot {
    /// `depot delta make|apply`: the server's patches, by hand.
    struct DeltaCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delta",
            abstract: "Make or apply a gzip-compressed VCDIFF (RFC 3284) patch, as the server stores them.",
            subcommands: [Make.self, Apply.self]
        )

        struct Make: DepotCommand {
            static let configuration = CommandConfiguration(abstract: "Write the patch that turns OLD into NEW.")

            @Argument(help: "The old file.") var old: PathArgument
            @Argument(help: "The new file.") var new: PathArgument
            @Argument(help: "Where to write the patch.") var patch: PathArgument
            @Option(help: "Index every STEP bytes of OLD: 4 makes smaller patches of rebuilt files with more memory.")
            var indexStep = 8
            @Flag(help: "Leave the VCDIFF's sections unpacked, for decoders without xdelta3's LZMA secondary compressor.")
            var noPackSections = false

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    let bytes: Data
                    do {
                        guard
                            let made = try DeltaMaker.make(
                                from: old.path(in: environment),
                                to: new.path(in: environment),
                                options: .init(indexStep: indexStep, packsSections: !noPackSections)
                            )
                        else {
                            throw CommandFailure("no patch was made")
                        }
                        bytes = Data(made.readableBytesView)
                    } catch let error as StoreError {
                        throw CommandFailure(PathArgument.asGiven(error.description, [old, new], in: environment))
                    }
                    do {
                        try bytes.write(to: patch.url(in: environment), options: .atomic)
                    } catch {
                        throw CommandFailure("cannot write \(patch): \(error.localizedDescription)")
                    }
                }
            }
        }

        struct Apply: DepotCommand {
            static let configuration = CommandConfiguration(abstract: "Write the file that PATCH makes of OLD.")

            @Argument(help: "The old file.") var old: PathArgument
            @Argument(help: "The patch.") var patch: PathArgument
            @Argument(help: "Where to write the result.") var output: PathArgument
            @Option(help: "The largest result allowed, in bytes.") var maximumSize = 1 << 34

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    do {
                        try DeltaPatch.apply(
                            base: old.url(in: environment),
                            patch: patch.url(in: environment),
                            output: output.url(in: environment),
                            maximumSize: maximumSize
                        )
                    } catch let error as SyncError {
                        throw CommandFailure(PathArgument.asGiven(error.message, [old, patch, output], in: environment))
                    }
                }
            }
        }
    }
}
