import AsyncHTTPClient
import DepotClient
import DepotExport
import DepotFiles
import DepotManifest
import DepotSigning
import Foundation

/// The one copy of `depot mirror` and of `depot import`.
enum Mirroring {
    /// Mirrors `channels` from `sources` (URLs of origins or static mirrors, or folders) into
    /// `folder`, trying them in order as clients fail over: a source that cannot be reached, or
    /// whose content fails a check, hands over to the next, which goes on from what was placed.
    /// Every request to a URL keeps the rate of `limits`. With `newestFirst` (import), each
    /// channel is copied on its own, from the sources ordered by the serial of the document each
    /// holds, highest first (``bySerial(_:channel:client:partial:trust:limits:)``): a source
    /// behind another never wins because it was listed first.
    static func run(
        _ sources: [MirrorAddress],
        into folder: ExportFolder,
        channels: [String],
        trust: ChannelCheck.Trust,
        limits: TransferLimits,
        newestFirst: Bool = false,
        in environment: CommandEnvironment
    ) async throws -> (mirrored: [MirroredChannel], failovers: [SyncReport.Failover]) {
        // Made and opened through the destination's descriptor: a link at `.mirror` is refused.
        let destination = try ContainedFolder(root: "\(folder.root)", creating: false)
        try destination.makeFolder(".mirror")
        let partial = try destination.subfolder(".mirror")
        return try await environment.withTransport { client in
            func copy(_ sources: [MirrorAddress], _ channels: [String]) async throws -> ([MirroredChannel], [SyncReport.Failover]) {
                try await Failover.run(sources, name: \.name) { address, _ in
                    let now = Int64(Date().timeIntervalSince1970)
                    func mirror(from source: some MirrorSourcing) async throws -> [MirroredChannel] {
                        let reader = TreeReader(source: source, maximumDocumentBytes: MirrorSource.maximumDocumentBytes)
                        return try await Mirror(reader: reader, folder: folder, trust: trust, now: now).run(channels: channels)
                    }
                    do {
                        return .done(try await mirror(from: address.source(client: client, partialFolder: partial, limits: limits)))
                    } catch let error as MirrorError {
                        throw SyncError(.server, error.message)
                    }
                }
            }
            guard newestFirst, sources.count > 1 else { return try await copy(sources, channels) }
            var mirrored: [MirroredChannel] = []
            var failovers: [SyncReport.Failover] = []
            for channel in channels {
                let ordered = await bySerial(sources, channel: channel, client: client, partial: partial, trust: trust, limits: limits)
                let (taken, failed) = try await copy(ordered, [channel])
                mirrored += taken
                failovers += failed
            }
            return (mirrored, failovers)
        }
    }

    /// `sources` ordered by the serial of the document of `channel` each serves, checked as a
    /// copy checks it, highest first; a source whose document cannot be had or fails a check
    /// comes last. Equal serials keep the order given.
    static func bySerial(
        _ sources: [MirrorAddress],
        channel: String,
        client: any HTTPTransport,
        partial: ContainedFolder,
        trust: ChannelCheck.Trust,
        limits: TransferLimits
    ) async -> [MirrorAddress] {
        let now = Int64(Date().timeIntervalSince1970)
        func serial(at source: some MirrorSourcing) async -> Int64? {
            let reader = TreeReader(source: source, maximumDocumentBytes: MirrorSource.maximumDocumentBytes)
            let checked = try? await reader.checkedChannel(channel, trust: trust, fromFirstRoot: true, now: now, lastAccepted: nil)
            return checked?.document.serial
        }
        var serials: [Int64] = []
        for address in sources { serials.append(await serial(at: address.source(client: client, partialFolder: partial, limits: limits)) ?? -1) }
        return sources.indices.sorted { (serials[$0], -$0) > (serials[$1], -$1) }.map { sources[$0] }
    }
}

/// Where a mirror copies from: an origin's or a static mirror's URL, or a local folder.
enum MirrorAddress: Sendable {
    case url(String)
    case folder(URL)

    /// `text` as a source: an `http://` or `https://` URL, or a folder that exists (in
    /// `environment`'s folder when relative).
    init(_ text: String, in environment: CommandEnvironment) throws {
        let folder = PathArgument(text).path(in: environment)
        if text.contains("://") {
            guard let base = try? ServerOptions.baseURL(of: text) else { throw CommandFailure("--from \(text): not an http:// or https:// URL") }
            self = .url(base)
            return
        }
        guard (try? ContainedFolder(root: folder, creating: false)) != nil else {
            throw CommandFailure("--from \(text): not an http:// or https:// URL, nor a folder that exists")
        }
        self = .folder(URL(fileURLWithPath: folder))
    }

    /// The source to read at this address: over HTTP with `client`, under `limits`, or the folder.
    func source(client: any HTTPTransport, partialFolder: ContainedFolder, limits: TransferLimits) -> any MirrorSourcing {
        switch self {
        case .url(let base): MirrorSource(base: base, client: client, partialFolder: partialFolder, limits: limits)
        case .folder(let root): FolderSource(root: root, partialFolder: partialFolder)
        }
    }

    var name: String {
        switch self {
        case .url(let base): base
        case .folder(let root): root.path
        }
    }
}
