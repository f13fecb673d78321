import ArgumentParser
import DepotClient
import DepotExport
import DepotFiles
import DepotManifest
import Foundation
import _NIOFileSystem

/// Where `depot mirror` and `depot import` copy from, and what they trust: the options both
/// take, checked by one rule, run by one copy (``Mirroring``).
struct MirrorSourceOptions: ParsableArguments {
    @Option(
        help: """
            A source: a Depot origin or a static mirror (https://depot.example.com), or a folder holding a tree \
            (an export or a mirror). Repeatable: the sources are tried in order, each run going on from what an \
            earlier one placed, as clients fail over.
            """
    )
    var from: [String] = []

    @Option(name: .customLong("channel"), help: "A channel to copy (repeatable; default: every channel of a folder source, else stable).")
    var channels: [String] = []

    @OptionGroup var trustOptions: TrustOptions

    @OptionGroup var rate: TransferRateOptions

    @Flag(help: "Copy without checking any signature: whoever can answer for the source decides what the folder serves.")
    var withoutSignatureChecks = false

    func validate() throws {
        if from.isEmpty { throw ValidationError("give the source with --from") }
        try rate.check()
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

    /// The channels copied when none is named: every channel a folder holds (a URL lists none),
    /// else the default one.
    static func defaultChannels(of source: MirrorAddress) -> [String] {
        guard case .folder(let root) = source,
            let names = try? ContainedFolder(root: root.path, creating: false).names(in: "channels")
        else { return [ChannelName.default] }
        let channels = names.filter { ChannelName.problem($0) == nil }.sorted()
        return channels.isEmpty ? [ChannelName.default] : channels
    }

    /// Copies the channels from the sources into the export folder at `path` (made when
    /// missing); failovers are told on standard error. Every failure is one line
    /// (``CommandFailure``). With `newestFirst`, each channel comes from the source whose
    /// document has the highest serial (``Mirroring/bySerial(_:channel:client:partial:trust:limits:)``).
    func copy(
        into path: PathArgument,
        newestFirst: Bool = false,
        in environment: CommandEnvironment
    ) async throws -> (folder: ExportFolder, mirrored: [MirroredChannel]) {
        let sources = try from.map { try MirrorAddress($0, in: environment) }
        let root = try trustOptions.rootDocument(in: environment)
        let trust: ChannelCheck.Trust
        do throws(SyncError) {
            trust = try ChannelCheck.Trust(trustedKeys: trustOptions.trustedKeys, trustedRoot: root)
        } catch {
            throw CommandFailure(error.message)
        }
        let folder: ExportFolder
        do {
            folder = try ExportFolder(root: FilePath(path.path(in: environment)))
        } catch {
            throw CommandFailure("cannot write \(path): \(error)")
        }
        do {
            let (mirrored, failovers) = try await Mirroring.run(
                sources,
                into: folder,
                channels: channels.isEmpty ? Self.defaultChannels(of: sources[0]) : channels,
                trust: trust,
                limits: rate.limits,
                newestFirst: newestFirst,
                in: environment
            )
            for failover in failovers {
                environment.printError("\(failover.server) failed, the next source was tried: \(failover.error)")
            }
            return (folder, mirrored)
        } catch let error as SyncError {
            throw CommandFailure(error.message)
        } catch let error as FolderError {
            throw CommandFailure("cannot write \(path): \(error.message)")
        } catch let error as ExportError {
            throw CommandFailure("the source's content is refused: \(error.message)")
        }
    }
}
