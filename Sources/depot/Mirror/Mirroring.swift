import DepotClient
import DepotExport
import DepotSigning
import Foundation

/// The one copy of `depot mirror` and of `depot import`.
enum Mirroring {
    /// Mirrors `channels` from `sources` (URLs of origins or static mirrors, or folders) into
    /// `folder`, trying them in order as clients fail over: a source that cannot be reached, or
    /// whose content fails a check, hands over to the next, which goes on from what was placed.
    static func run(
        _ sources: [MirrorAddress],
        into folder: ExportFolder,
        channels: [String],
        trust: ChannelCheck.Trust
    ) async throws -> (mirrored: [MirroredChannel], failovers: [SyncReport.Failover]) {
        let partial = URL(fileURLWithPath: "\(folder.root)").appendingPathComponent(".mirror")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        return try await withHTTPClient { client in
            try await Failover.run(sources, name: \.name) { address, _ in
                let now = Int64(Date().timeIntervalSince1970)
                func mirror(from source: some MirrorSourcing) async throws -> [MirroredChannel] {
                    let reader = TreeReader(source: source, maximumDocumentBytes: MirrorSource.maximumDocumentBytes)
                    return try await Mirror(reader: reader, folder: folder, trust: trust, now: now).run(channels: channels)
                }
                do {
                    switch address {
                    case .url(let base): return .done(try await mirror(from: MirrorSource(base: base, client: client, partialFolder: partial)))
                    case .folder(let root): return .done(try await mirror(from: FolderSource(root: root, partialFolder: partial)))
                    }
                } catch let error as MirrorError {
                    throw SyncError(.server, error.message)
                }
            }
        }
    }
}

/// Where a mirror copies from: an origin's or a static mirror's URL, or a local folder.
enum MirrorAddress: Sendable {
    case url(String)
    case folder(URL)

    /// `text` as a source: an `http://` or `https://` URL, or a folder that exists.
    init(_ text: String) throws {
        if text.contains("://") {
            guard let base = try? ServerOptions.baseURL(of: text) else { throw CommandFailure("--from \(text): not an http:// or https:// URL") }
            self = .url(base)
            return
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: text, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("--from \(text): not an http:// or https:// URL, nor a folder that exists")
        }
        self = .folder(URL(fileURLWithPath: text))
    }

    var name: String {
        switch self {
        case .url(let base): base
        case .folder(let root): root.path
        }
    }
}
