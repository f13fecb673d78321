import Crypto
import DepotClient
import DepotDelta
import DepotHTTP
import DepotManifest
import DepotSigning
import DepotStore
import Foundation
import _NIOFileSystem

/// `depot mirror`: copies what channels' releases need from a source (``MirrorSource``) into an
/// export folder (``DepotStore/ExportFolder``), laid out as the origin serves it.
///
/// Nothing becomes visible unchecked: each channel document must be signed as the trust given
/// says (walking the source's roots), no older than the one the folder holds, and unexpired;
/// every document and file must have the SHA-256 its name or release gives; a block pack must
/// unpack to its verified index; a document patch must make exactly its target. The writes
/// follow the export's order (files, made durable, then pages, then release documents, then
/// channel documents, each replaced atomically), so a copy killed at any point leaves a
/// consistent folder, and the next run goes on from what is there: placed objects are not
/// fetched again, and a file cut short resumes.
struct Mirror {
    let source: MirrorSource
    let folder: ExportFolder
    let trust: ChannelCheck.Trust
    /// Seconds since 1970 now, against which documents' expiry is checked.
    let now: Int64

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
            for release in document.namedReleases { try await mirrorRelease(release, withParent: true) }
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

    // MARK: - Releases

    /// Mirrors the release `id` unless the folder has it, after its parent (when `withParent`
    /// and the source has it), as the export does.
    private func mirrorRelease(_ id: String, withParent: Bool) async throws {
        guard !folder.contains("releases/\(id)") else { return }
        let bytes = try await verifiedDocument("releases/\(id)", sha256: id)
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes)) else {
            throw MirrorError("the release \(id) is not a release document")
        }
        var parentBytes: [UInt8]?
        if let parentID = release.parent { parentBytes = try await base("releases/\(parentID)", sha256: parentID) }
        if withParent, let parentID = release.parent, parentBytes != nil {
            try await mirrorRelease(parentID, withParent: false)
        }
        let parent = parentBytes.flatMap { try? JSONDecoder().decode(ReleaseDocument.self, from: Data($0)) }
        if let parentID = release.parent, let parentBytes { try await mirrorDocumentPatch(from: parentID, base: parentBytes, to: id, target: bytes) }
        let bases = release.pageBases(from: parent)
        var seen: Set<String> = []
        var pages: [(sha256: String, bytes: [UInt8])] = []
        for sha256 in release.pages where seen.insert(sha256).inserted && !folder.contains("pages/\(sha256)") {
            let pageBytes = try await verifiedDocument("pages/\(sha256)", sha256: sha256)
            guard let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(pageBytes)) else {
                throw MirrorError("the page \(sha256) is not a release page")
            }
            for entry in page.entries { try await mirrorEntry(entry) }
            try placePack(of: page, sha256: sha256)
            if let basePage = bases[sha256], let baseBytes = try await base("pages/\(basePage)", sha256: basePage) {
                try await mirrorDocumentPatch(from: basePage, base: baseBytes, to: sha256, target: pageBytes)
            }
            pages.append((sha256, pageBytes))
        }
        try folder.barrier()
        for page in pages { try folder.place("pages/\(page.sha256)", bytes: page.bytes) }
        try folder.barrier()
        try folder.place("releases/\(id)", bytes: bytes)
    }

    /// The earlier document a patch applies to, from the folder or else the source (checked,
    /// not placed: what the folder holds has everything below it); `nil` when neither has it.
    private func base(_ path: String, sha256: String) async throws -> [UInt8]? {
        if let held = folder.read(path) { return held }
        guard let bytes = try await source.document(path), Hex.string(SHA256.hash(data: bytes)) == sha256 else { return nil }
        return bytes
    }

    /// A document whose name is its SHA-256.
    private func verifiedDocument(_ path: String, sha256: String) async throws -> [UInt8] {
        guard let bytes = try await source.document(path) else { throw MirrorError("the source has no \(path)") }
        guard Hex.string(SHA256.hash(data: bytes)) == sha256 else { throw MirrorError("\(path) does not have the SHA-256 its name says") }
        return bytes
    }

    /// An entry's file, gzip variant, block index and block pack, and the patches it lists.
    private func mirrorEntry(_ entry: ReleaseEntry) async throws {
        try await mirrorFile("blobs/\(entry.sha256)", sha256: entry.sha256, size: entry.size, required: true)
        if let gzip = entry.gzip { try await mirrorFile("blobs/\(entry.sha256).gz", sha256: gzip.sha256, size: gzip.size, required: true) }
        if let blocks = entry.blocks, !folder.contains("blobs/\(entry.sha256).zblocks") {
            try await mirrorFile("blobs/\(entry.sha256).blocks", sha256: blocks.sha256, size: blocks.size, required: true)
            try await mirrorBlockPack(of: entry)
        }
        for patch in entry.patches ?? [] {
            // A source without a listed patch costs its clients a larger download, nothing more.
            try await mirrorFile("deltas/\(patch.from)/\(entry.sha256)", sha256: patch.sha256, size: patch.size, required: false)
        }
    }

    private func mirrorFile(_ path: String, sha256: String, size: Int64, required: Bool) async throws {
        guard !folder.contains(path) else { return }
        guard let file = try await source.file(path, sha256: sha256, size: size) else {
            if required { throw MirrorError("the source has no \(path)") }
            return
        }
        try folder.place(path, from: FilePath(file.path))
        try FileManager.default.removeItem(at: file)
    }

    /// `/blobs/{sha256}.zblocks`, which no release lists by hash: each block must unpack to the
    /// block the verified index lists.
    private func mirrorBlockPack(of entry: ReleaseEntry) async throws {
        let path = "blobs/\(entry.sha256).zblocks"
        guard let indexBytes = folder.read("blobs/\(entry.sha256).blocks"), let index = try? BlockIndex(decoding: indexBytes) else {
            throw MirrorError("the block index of \(entry.path) cannot be read")
        }
        let offsets = index.packedOffsets()
        guard let packed = try await source.document(path) else { throw MirrorError("the source has no \(path)") }
        guard Int64(packed.count) == offsets[offsets.count - 1] else { throw MirrorError("\(path) does not have its index's length") }
        let inflater = try GzipInflater(bufferSize: index.blockSize, framing: .raw)
        do {
            for block in index.blocks.indices {
                inflater.reset()
                _ = try packed[Int(offsets[block])..<Int(offsets[block + 1])].withUnsafeBytes {
                    try index.unpack(block: block, from: $0, inflater: inflater)
                }
            }
        } catch {
            throw MirrorError("\(path) does not match its block index: \(error)")
        }
        try folder.place(path, bytes: packed)
    }

    /// `/packs/{page}`, made here from the page's verified files, as the origin makes it.
    private func placePack(of page: ReleasePage, sha256: String) throws {
        guard !page.packMembers.isEmpty, !folder.contains("packs/\(sha256)") else { return }
        guard let pack = page.pack(reading: { folder.read("blobs/\($0.entry.sha256)" + ($0.isGzip ? ".gz" : "")) }) else {
            throw MirrorError("a file of the page \(sha256) is missing from the folder")
        }
        try folder.place("packs/\(sha256)", bytes: pack)
    }

    /// The patch of a document from `base` (held), kept only when it makes exactly `target`.
    private func mirrorDocumentPatch(from: String, base: [UInt8], to: String, target: [UInt8]) async throws {
        let path = "deltas/\(from)/\(to)"
        guard !folder.contains(path), let patch = try await source.document(path) else { return }
        guard let made = try? DeltaPatch.apply(Data(patch), to: Data(base), maximumSize: target.count), made == Data(target) else { return }
        try folder.place(path, bytes: patch)
    }
}
