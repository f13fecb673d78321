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
    struct Mirrored: Sendable {
        let channel: String
        let document: ChannelDocument
    }

    /// Mirrors `channels`.
    func run(channels: [String]) async throws -> [Mirrored] {
        var documents: [(name: String, bytes: [UInt8], document: ChannelDocument)] = []
        for channel in channels {
            let object = try TreeObject.channel(channel)
            guard let bytes = try await source.document(object) else { throw MirrorError("the source has no channel \(channel)") }
            guard let document = try? JSONDecoder().decode(ChannelDocument.self, from: Data(bytes)) else {
                throw MirrorError("the source's channel \(channel) is not a channel document")
            }
            let (trust, roots) = try await trust(for: document)
            let held = try folder.read(object).flatMap { try? JSONDecoder().decode(ChannelDocument.self, from: Data($0)) }
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
            // Only a document that passed places anything: its roots first.
            for (version, rootBytes) in roots { try folder.place(try .root(version), bytes: rootBytes) }
            for release in document.namedReleases { _ = try await folder.write(release: release, withParent: true, from: self) }
            documents.append((channel, bytes, document))
        }
        try folder.barrier()
        for (name, bytes, _) in documents { try folder.replaceChannelDocument(named: name, with: bytes) }
        return documents.map { Mirrored(channel: $0.name, document: $0.document) }
    }

    // MARK: - Roots

    /// The most roots a source is followed through without a trusted root to anchor them.
    static let maximumUnanchoredRoots: Int64 = 1000

    /// The trust a document is checked under, and the roots 1 to the one it names, to place
    /// once it has passed (a client that holds an older root walks them). Under a trusted
    /// root: the source's roots up to it must lead exactly to it, and those after it must each
    /// follow (``DepotClient/RootWalk``), so what is fetched is bounded by the genuine chain.
    /// Under keys, or none: the chain must hold together from a well-formed root 1.
    private func trust(for document: ChannelDocument) async throws -> (ChannelCheck.Trust, [(Int64, [UInt8])]) {
        guard let version = document.root, version >= 1 else { return (trust, []) }
        var roots: [(Int64, [UInt8])] = []
        let keep = { (root: RootDocument, bytes: [UInt8]) in roots.append((root.version, bytes)) }
        do {
            guard let firstBytes = try await rootBytes(try .root(1)),
                let first = try? JSONDecoder().decode(RootDocument.self, from: Data(firstBytes))
            else {
                throw MirrorError("the channel document names root \(version), but the source has no valid \(try TreeObject.root(1).url)")
            }
            try first.checkFirst()
            keep(first, firstBytes)
            switch trust {
            case .root(let shipped):
                let reached = try await RootWalk.walk(from: first, to: shipped.version, fetch: rootBytes, verified: keep)
                guard reached == shipped else { throw MirrorError("the source's roots do not descend from the trusted root") }
                let newest = try await RootWalk.walk(from: shipped, to: version, fetch: rootBytes, verified: keep)
                return (.root(newest), roots)
            case .keys, .none:
                guard version <= Self.maximumUnanchoredRoots else {
                    throw MirrorError(
                        "the channel document names root \(version); without --trusted-root at most \(Self.maximumUnanchoredRoots) are followed"
                    )
                }
                _ = try await RootWalk.walk(from: first, to: version, fetch: rootBytes, verified: keep)
                return (trust, roots)
            }
        } catch let failure as RootWalk.Failure {
            throw MirrorError("the source's roots are refused: \(failure.message)")
        } catch let problem as RootDocument.Problem {
            throw MirrorError("the source's roots are refused: \(problem.message)")
        }
    }

    /// The root `object`, as the folder holds it, else as the source serves it (at most
    /// ``DepotClient/RootWalk/maximumRootBytes``).
    private func rootBytes(_ object: TreeObject) async throws -> [UInt8]? {
        if let held = try folder.read(object) { return held }
        return try await source.document(object, maximumBytes: RootWalk.maximumRootBytes)
    }
}
