import Crypto
import DepotClient
import DepotDelta
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import Synchronization
import _NIOFileSystem

/// The source as an ``DepotStore/ExportSource``: every document and file checked against the
/// SHA-256 its name or release gives before the folder gets it.
extension Mirror: ExportSource {
    /// The release `id`, from the folder when it holds it, else from the source; `nil` when the
    /// source answers 404.
    func releaseDocument(_ id: String) async throws -> [UInt8]? {
        if let held = folder.read("releases/\(id)") { return held }
        guard let bytes = try await source.document("releases/\(id)") else { return nil }
        try Self.check(bytes, path: "releases/\(id)", sha256: id)
        return bytes
    }

    func pageDocument(_ sha256: String) async throws -> [UInt8] {
        if let checked = checkedPages.take(sha256) { return checked }
        let path = "pages/\(sha256)"
        guard let bytes = try await source.document(path) else { throw MirrorError("the source has no \(path)") }
        try Self.check(bytes, path: path, sha256: sha256)
        checkedPages.keep(sha256, bytes)
        return bytes
    }

    /// The patch, kept only when it makes exactly `targetBytes` from the base (the folder's, or
    /// one fetched and checked, not placed: what the folder holds has everything below it).
    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
        let basePath = "\(kind.rawValue)/\(base)"
        var baseBytes = folder.read(basePath)
        if baseBytes == nil, let fetched = try await source.document(basePath), Hex.string(SHA256.hash(data: fetched)) == base {
            baseBytes = fetched
        }
        let path = "deltas/\(base)/\(target)"
        guard let baseBytes, !folder.contains(path), let patch = try await source.document(path) else { return nil }
        guard let made = try? DeltaPatch.apply(Data(patch), to: Data(baseBytes), maximumSize: targetBytes.count), made == Data(targetBytes) else {
            return nil
        }
        return patch
    }

    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
        for entry in page.entries { try await mirrorEntry(entry) }
        guard !page.packMembers.isEmpty, !folder.contains("packs/\(sha256)") else { return }
        guard let pack = page.pack(reading: { folder.read("blobs/\($0.entry.sha256)" + ($0.isGzip ? ".gz" : "")) }) else {
            throw MirrorError("a file of the page \(sha256) is missing from the folder")
        }
        try folder.place("packs/\(sha256)", bytes: pack)
    }

    private static func check(_ bytes: [UInt8], path: String, sha256: String) throws {
        guard Hex.string(SHA256.hash(data: bytes)) == sha256 else { throw MirrorError("\(path) does not have the SHA-256 its name says") }
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
}

/// Page documents a mirror has checked and not yet placed, by SHA-256.
final class CheckedPages: Sendable {
    private let pages = Mutex<[String: [UInt8]]>([:])

    func keep(_ sha256: String, _ bytes: [UInt8]) { pages.withLock { $0[sha256] = bytes } }

    /// The page, forgotten here: it is asked for a second time only to be placed.
    func take(_ sha256: String) -> [UInt8]? { pages.withLock { $0.removeValue(forKey: sha256) } }
}
