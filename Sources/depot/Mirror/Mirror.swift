import DepotClient
import DepotManifest
import DepotSigning
import DepotStore
import Foundation

/// `depot mirror`: copies what channels' releases need from a source (``MirrorSource``) into an
/// export folder (``DepotStore/ExportFolder``), laid out as the origin serves it.
///
/// Nothing becomes visible unchecked: each channel document must be signed as the trust given
/// says (walking the source's roots), no older than the one the folder holds, and unexpired;
/// every document and file must have the SHA-256 its name or release gives; a block pack must
/// unpack to its verified index; a document patch must make exactly its target. The writes
/// follow the export's order (``DepotStore/ExportFolder/write(release:withParent:from:)``, then
/// channel documents, each replaced atomically), so a copy killed at any point leaves a
/// consistent folder, and the next run goes on from what is there: placed objects are not
/// fetched again, and a file cut short resumes.
struct Mirror: Sendable {
    let source: MirrorSource
    let folder: ExportFolder
    let trust: ChannelCheck.Trust
    /// Seconds since 1970 now, against which documents' expiry is checked.
    let now: Int64
    /// Pages checked, kept from the look at what they name until they are placed.
    let checkedPages = CheckedPages()

    /// What one channel became.
    struct Mirrored {
        let channel: String
        let document: ChannelDocument
    }

    /// Mirrors `channels`.
    func run(channels: [String]) async throws -> [Mirrored] {
        var documents: [(name: String, bytes: [UInt8], document: ChannelDocument)] = []
        for channel in channels {
            guard let bytes = try await source.document("channels/\(channel)") else { throw MirrorError("the source has no channel \(channel)") }
            guard let document = try? JSONDecoder().decode(ChannelDocument.self, from: Data(bytes)) else {
                throw MirrorError("the source's channel \(channel) is not a channel document")
            }
            let trust = try await trust(for: document)
            let held = folder.read("channels/\(channel)").flatMap { try? JSONDecoder().decode(ChannelDocument.self, from: Data($0)) }
            do {
                _ = try ChannelCheck.check(
                    document,
                    channel: channel,
                    trust: trust,
                    now: now,
                    lastAccepted: held.map { .init(serial: $0.serial, release: $0.release, root: $0.root) }
                )
            } catch {
                throw MirrorError("the source's channel \(channel) is refused: \(error.message)")
            }
            for release in document.namedReleases { _ = try await folder.write(release: release, withParent: true, from: self) }
            documents.append((channel, bytes, document))
        }
        try folder.barrier()
        for (name, bytes, _) in documents { try folder.replaceChannelDocument(named: name, with: bytes) }
        return documents.map { Mirrored(channel: $0.name, document: $0.document) }
    }

    // MARK: - Roots

    /// The trust a document is checked under: under a root, the newest root it names, reached
    /// by verifying the source's chain from `roots/1.json` (which must hold the trusted root),
    /// each root placed in the folder.
    private func trust(for document: ChannelDocument) async throws -> ChannelCheck.Trust {
        guard let version = document.root else { return trust }
        var chain: [RootDocument] = []
        for number in 1...max(1, version) {
            let path = "roots/\(number).json"
            var held = folder.read(path)
            if held == nil { held = try await source.document(path) }
            guard let bytes = held else {
                throw MirrorError("the channel document names root \(version), but the source has no \(path)")
            }
            do {
                let root = try JSONDecoder().decode(RootDocument.self, from: Data(bytes))
                if let last = chain.last { try last.checkNext(root) } else { try root.checkFirst() }
                chain.append(root)
            } catch let problem as RootDocument.Problem {
                throw MirrorError("\(path) is refused: \(problem.message)")
            } catch {
                throw MirrorError("\(path) is not a root document")
            }
            try folder.place(path, bytes: bytes)
        }
        switch trust {
        case .root(let shipped):
            guard chain.contains(shipped) else { throw MirrorError("the source's roots do not descend from the trusted root") }
            return .root(chain[chain.count - 1])
        case .keys, .none:
            return trust
        }
    }
}
