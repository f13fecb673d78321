import Crypto
import DepotClient
import DepotDelta
import DepotExport
import DepotHTTP
import DepotManifest
import Foundation
import Synchronization
import _NIOFileSystem

/// The source as an ``DepotExport/ExportSource``: every document and file checked against the
/// SHA-256 its name or release gives before the folder gets it.
extension Mirror: ExportSource {
    /// The release `id`, from the folder when it holds it, else from the source; `nil` when the
    /// source answers 404.
    func releaseDocument(_ id: String) async throws -> [UInt8]? {
        let object = try TreeObject.release(id)
        if let held = try folder.read(object) { return held }
        return try await reader.release(id)?.1
    }

    func pageDocument(_ sha256: String) async throws -> [UInt8] {
        if let checked = checkedPages.take(sha256) { return checked }
        let (_, bytes) = try await reader.page(sha256)
        checkedPages.keep(sha256, bytes)
        return bytes
    }

    /// The patch, kept only when it makes exactly `targetBytes` from the base (the folder's, or
    /// one fetched and checked, not placed: what the folder holds has everything below it).
    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
        let baseObject = try kind == .release ? TreeObject.release(base) : TreeObject.page(base)
        guard try !folder.contains(try TreeObject.delta(from: base, to: target)) else { return nil }
        var baseBytes = try folder.read(baseObject)
        if baseBytes == nil { baseBytes = try? await reader.document(baseObject, sha256: base) }
        guard let baseBytes else { return nil }
        return await reader.patch(from: (base, baseBytes), to: target)?.patch
    }

    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
        for entry in page.entries {
            for object in try entry.objects() { try await mirror(object, of: entry) }
        }
        let (pack, brotliPack) = (try TreeObject.pack(ofPage: sha256), try TreeObject.brotliPack(ofPage: sha256))
        guard !page.packMembers.isEmpty else { return }
        if try !folder.contains(pack) {
            guard let bytes = try page.pack(reading: { member in try folder.read(try member.object) }) else {
                throw MirrorError("a file of the page \(sha256) is missing from the folder")
            }
            try folder.place(pack, bytes: bytes)
        }
        if try !folder.contains(brotliPack), let bytes = try BrotliPack.encode(page, reading: { try folder.read(try .blob($0.sha256)) }) {
            try folder.place(brotliPack, bytes: bytes)
        }
    }

    /// One object an entry names: a file checked against the SHA-256 and size the entry lists,
    /// or the block pack, checked against the block index. A source without a listed patch
    /// costs its clients a larger download, nothing more.
    private func mirror(_ named: ReleaseEntry.Object, of entry: ReleaseEntry) async throws {
        guard try !folder.contains(named.object) else { return }
        guard let sha256 = named.sha256, let size = named.size else { return try await mirrorBlockPack(of: entry, at: named.object) }
        guard let file = try await reader.source.file(named.object, sha256: sha256, size: size) else {
            if named.required { throw MirrorError("the source has no \(named.object)") }
            return
        }
        try folder.place(named.object, from: FilePath(file.path))
        try reader.source.discard(file)
    }

    /// `/blobs/{sha256}.zblocks`, which no release lists by hash: each block must unpack to the
    /// block the verified index lists.
    private func mirrorBlockPack(of entry: ReleaseEntry, at object: TreeObject) async throws {
        guard let indexBytes = try folder.read(try .blockIndex(of: entry.sha256)), let index = try? BlockIndex(decoding: indexBytes) else {
            throw MirrorError("the block index of \(entry.path) cannot be read")
        }
        let offsets = index.packedOffsets()
        let packed: [UInt8]
        switch try await reader.source.fetch(object, maximumBytes: MirrorSource.maximumDocumentBytes, ifNoneMatch: nil) {
        case .found(let bytes, _): packed = bytes
        case .missing: throw MirrorError("the source has no \(object)")
        case let answer: throw answer.refusal(of: object)
        }
        guard Int64(packed.count) == offsets[offsets.count - 1] else { throw MirrorError("\(object) does not have its index's length") }
        let inflater = try GzipInflater(bufferSize: index.blockSize, framing: .raw)
        do {
            for block in index.blocks.indices {
                inflater.reset()
                _ = try packed[Int(offsets[block])..<Int(offsets[block + 1])].withUnsafeBytes {
                    try index.unpack(block: block, from: $0, inflater: inflater)
                }
            }
        } catch {
            throw MirrorError("\(object) does not match its block index: \(error)")
        }
        try folder.place(object, bytes: packed)
    }
}

/// Page documents a mirror has checked and not yet placed, by SHA-256.
final class CheckedPages: Sendable {
    private let pages = Mutex<[String: [UInt8]]>([:])

    func keep(_ sha256: String, _ bytes: [UInt8]) { pages.withLock { $0[sha256] = bytes } }

    /// The page, forgotten here: it is asked for a second time only to be placed.
    func take(_ sha256: String) -> [UInt8]? { pages.withLock { $0.removeValue(forKey: sha256) } }
}
