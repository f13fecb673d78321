import ArgumentParser
import DepotClient
import DepotExport
import DepotFiles
import DepotManifest
import Foundation
import _NIOFileSystem

extension Depot {
    /// `depot mirror --from URL --to DIR`: follows a Depot origin or static mirror into an export
    /// folder.
    struct MirrorCommand: DepotCommand {
        static let configuration = CommandConfiguration(
            commandName: "mirror",
            abstract: "Copy what a channel's releases need from a Depot origin or static mirror into a folder any static server can serve.",
            discussion: """
                Checks every signature and SHA-256 before anything becomes visible, writes in the export's order \
                (files, then pages, then release documents, then channel documents, each replaced atomically), and \
                goes on where an interrupted run stopped. Run it again to follow the source. The folder can be \
                served by deploy/nginx/static-mirror.conf, pushed to an object store, or carried to a network \
                with no route to the origin.
                """
        )

        @OptionGroup var source: MirrorSourceOptions

        @Option(help: "The folder to write into (made when missing).")
        var to: PathArgument

        @Flag(help: "Print what was mirrored as JSON.")
        var json = false

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let (folder, mirrored) = try await source.copy(into: to, in: environment)
                if json {
                    struct Mirrored: Encodable {
                        struct Channel: Encodable { let channel: String, release: Int64, serial: Int64 }
                        let channels: [Channel]
                        let written: Int
                    }
                    let channels = mirrored.map { Mirrored.Channel(channel: $0.channel, release: $0.document.number, serial: $0.document.serial) }
                    return try environment.printJSON(Mirrored(channels: channels, written: folder.written))
                }
                for channel in mirrored {
                    environment.print("Mirrored \(channel.channel): release \(channel.document.number), serial \(channel.document.serial)")
                }
                environment.print("\(folder.written) file(s) written to \(to)")
            }
        }
    }
}
