import DepotClient
import DepotExport
import DepotManifest
import DepotSigning
import Foundation

/// `depot mirror`: copies what channels' releases need from a source (``MirrorSource``) into an
/// export folder (``DepotExport/ExportFolder``), laid out as the origin serves it.
///
/// Nothing becomes visible unchecked, and what is checked is checked as the client does, by the
/// same code (``DepotClient/TreeReader``): each channel document must be signed as the trust
/// given says (walking the source's roots from root 1), no older than the one the folder
/// holds, and unexpired; every document and file must have the SHA-256 its name or release gives; a block pack must
/// unpack to its verified index; a document patch must make exactly its target. The writes
/// follow the export's order (``DepotExport/ExportFolder/write(release:withParent:from:)``, then
/// channel documents, each replaced atomically), so a copy killed at any point leaves a
/// consistent folder, and the next run goes on from what is there: placed objects are not
/// fetched again, and a file cut short resumes.
struct Mirror<Source: MirrorSourcing>: Sendable {
    /// The source, read through the client's checked path.
    let reader: TreeReader<Source>
    let folder: ExportFolder
    let trust: ChannelCheck.Trust
    /// Seconds since 1970 now, against which documents' expiry is checked.
    let now: Int64
    /// Pages checked, kept from the look at what they name until they are placed.
    let checkedPages = CheckedPages()

    /// Mirrors `channels`.
    func run(channels: [String]) async throws -> [MirroredChannel] {
        var documents: [(name: String, bytes: [UInt8], document: ChannelDocument)] = []
        for channel in channels {
            let object = try TreeObject.channel(channel)
            let held = try folder.read(object).flatMap { try? JSONDecoder().decode(ChannelDocument.self, from: Data($0)) }
            // From root 1: a client that holds an older root walks the roots placed here.
            let checked: TreeReader<Source>.CheckedChannel?
            do {
                checked = try await reader.checkedChannel(
                    channel,
                    trust: trust,
                    fromFirstRoot: true,
                    held: folder.read,
                    now: now,
                    lastAccepted: held.map { .init(serial: $0.serial, release: $0.release, root: $0.root) }
                )
            } catch let error as SyncError {
                throw SyncError(error.code, "the source's channel \(channel) is refused: \(error.message)")
            }
            guard let checked else { throw MirrorError("the source answered 304 to a request without If-None-Match") }
            let (document, bytes) = (checked.document, checked.bytes)
            // Only a document that passed places anything: its roots first.
            for root in checked.roots { try folder.place(try .root(root.document.version), bytes: root.bytes) }
            for release in document.namedReleases { _ = try await folder.write(release: release, withParent: true, from: self) }
            documents.append((channel, bytes, document))
        }
        try folder.barrier()
        for (name, bytes, _) in documents { try folder.replaceChannelDocument(named: name, with: bytes) }
        return documents.map { MirroredChannel(channel: $0.name, document: $0.document) }
    }
}

/// What one channel of a mirror became: its document, checked.
struct MirroredChannel: Sendable {
    let channel: String
    let document: ChannelDocument
}
