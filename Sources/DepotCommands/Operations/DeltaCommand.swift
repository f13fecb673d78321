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

        struct Make: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Write the patch that turns OLD into NEW.")

            @Argument(help: "The old file.") var old: String
            @Argument(help: "The new file.") var new: String
            @Argument(help: "Where to write the patch.") var patch: String
            @Option(help: "Index every STEP bytes of OLD: 4 makes smaller patches of rebuilt files with more memory.")
            var indexStep = 8
            @Flag(help: "Leave the VCDIFF's sections unpacked, for decoders without xdelta3's LZMA secondary compressor.")
            var noPackSections = false

            func run() async throws {
                try await reportingFailures {
                    let bytes: Data
                    do {
                        guard let made = try DeltaMaker.make(from: old, to: new, options: .init(indexStep: indexStep, packsSections: !noPackSections))
                        else {
                            throw CommandFailure("no patch was made")
                        }
                        bytes = Data(made.readableBytesView)
                    } catch let error as StoreError {
                        throw CommandFailure(error.description)
                    }
                    do {
                        try bytes.write(to: URL(fileURLWithPath: patch), options: .atomic)
                    } catch {
                        throw CommandFailure("cannot write \(patch): \(error.localizedDescription)")
                    }
                }
            }
        }

        struct Apply: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Write the file that PATCH makes of OLD.")

            @Argument(help: "The old file.") var old: String
            @Argument(help: "The patch.") var patch: String
            @Argument(help: "Where to write the result.") var output: String
            @Option(help: "The largest result allowed, in bytes.") var maximumSize = 1 << 34

            func run() async throws {
                try await reportingFailures {
                    do {
                        try DeltaPatch.apply(
                            base: URL(fileURLWithPath: old),
                            patch: URL(fileURLWithPath: patch),
                            output: URL(fileURLWithPath: output),
                            maximumSize: maximumSize
                        )
                    } catch let error as SyncError {
                        throw CommandFailure(error.message)
                    }
                }
            }
        }
    }
}
