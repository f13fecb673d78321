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
    struct MirrorCommand: AsyncParsableCommand {
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

        @Option(
            help: """
                A source: a Depot origin or a static mirror, e.g. https://depot.example.com. Repeatable: the sources \
                are tried in order, each run going on from what an earlier one placed, as clients fail over.
                """
        )
        var from: [String] = []

        @Option(help: "The folder to write into (made when missing).")
        var to: String

        @Option(name: .customLong("channel"), help: "A channel to mirror (repeatable; default stable).")
        var channels: [String] = []

        @OptionGroup var trustOptions: TrustOptions

        @Flag(help: "Print what was mirrored as JSON.")
        var json = false

        @Flag(help: "Copy without checking any signature: whoever can answer for the source decides what the folder serves.")
        var withoutSignatureChecks = false

        func validate() throws {
            if from.isEmpty { throw ValidationError("give the source with --from") }
            if let bad = channels.first(where: { ChannelName.problem($0) != nil }) {
                throw ValidationError("--channel \(bad): \(ChannelName.problem(bad)!)")
            }
            if trustOptions.trustedRoot != nil, !trustOptions.trustedKeys.isEmpty {
                throw ValidationError("give --trusted-root or --trusted-key, not both")
            }
            let trusting = trustOptions.trustedRoot != nil || !trustOptions.trustedKeys.isEmpty
            if !trusting, !withoutSignatureChecks {
                throw ValidationError("give --trusted-root or --trusted-key (or --without-signature-checks to copy what the source serves unchecked)")
            }
            if trusting, withoutSignatureChecks {
                throw ValidationError("--without-signature-checks cannot be given with --trusted-root or --trusted-key")
            }
        }

        func run() async throws {
            try await reportingFailures {
                let bases = try from.map { try ServerOptions.baseURL(of: $0) }
                let root = try trustOptions.rootDocument()
                let trust: ChannelCheck.Trust
                do throws(SyncError) {
                    trust = try ChannelCheck.Trust(trustedKeys: trustOptions.trustedKeys, trustedRoot: root)
                } catch {
                    throw CommandFailure(error.message)
                }
                let folder: ExportFolder
                do {
                    folder = try ExportFolder(root: FilePath(to))
                } catch {
                    throw CommandFailure("cannot write \(to): \(error)")
                }
                let partial = URL(fileURLWithPath: to).appendingPathComponent(".mirror")
                try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
                let (mirrored, failovers) = try await withHTTPClient { client in
                    do {
                        // The client's rule (Failover): a source that fails, or whose content
                        // fails a check, hands over to the next; what it placed stays.
                        return try await Failover.run(bases, name: \.self) { base, _ in
                            let source = MirrorSource(base: base, client: client, partialFolder: partial)
                            let mirror = Mirror(
                                reader: TreeReader(source: source, maximumDocumentBytes: MirrorSource.maximumDocumentBytes),
                                folder: folder,
                                trust: trust,
                                now: Int64(Date().timeIntervalSince1970)
                            )
                            do {
                                return .done(try await mirror.run(channels: channels.isEmpty ? [ChannelName.default] : channels))
                            } catch let error as MirrorError {
                                throw SyncError(.server, error.message)
                            }
                        }
                    } catch let error as SyncError {
                        throw CommandFailure(error.message)
                    } catch let error as FolderError {
                        throw CommandFailure("cannot write \(to): \(error.message)")
                    } catch let error as ExportError {
                        throw CommandFailure("the source's content is refused: \(error.message)")
                    }
                }
                for failover in failovers {
                    FileHandle.standardError.write(Data("\(failover.server) failed, the next source was tried: \(failover.error)\n".utf8))
                }
                if json {
                    struct Mirrored: Encodable {
                        struct Channel: Encodable { let channel: String, release: Int64, serial: Int64 }
                        let channels: [Channel]
                        let written: Int
                    }
                    let channels = mirrored.map { Mirrored.Channel(channel: $0.channel, release: $0.document.number, serial: $0.document.serial) }
                    return try printJSON(Mirrored(channels: channels, written: folder.written))
                }
                for channel in mirrored {
                    print("Mirrored \(channel.channel): release \(channel.document.number), serial \(channel.document.serial)")
                }
                print("\(folder.written) file(s) written to \(to)")
            }
        }
    }
}
