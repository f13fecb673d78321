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
        let object = try TreeObject.release(id)
        if let held = try folder.read(object) { return held }
        guard let bytes = try await source.document(object) else { return nil }
        try Self.check(bytes, object: object, sha256: id)
        return bytes
    }

    func pageDocument(_ sha256: String) async throws -> [UInt8] {
        if let checked = checkedPages.take(sha256) { return checked }
        let object = try TreeObject.page(sha256)
        guard let bytes = try await source.document(object) else { throw MirrorError("the source has no \(object)") }
        try Self.check(bytes, object: object, sha256: sha256)
        checkedPages.keep(sha256, bytes)
        return bytes
    }

    /// The patch, kept only when it makes exactly `targetBytes` from the base (the folder's, or
    /// one fetched and checked, not placed: what the folder holds has everything below it).
    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
        let baseObject = try kind == .release ? TreeObject.release(base) : TreeObject.page(base)
        var baseBytes = try folder.read(baseObject)
        if baseBytes == nil, let fetched = try await source.document(baseObject), Hex.string(SHA256.hash(data: fetched)) == base {
            baseBytes = fetched
        }
        let object = try TreeObject.delta(from: base, to: target)
        guard let baseBytes, try !folder.contains(object), let patch = try await source.document(object) else { return nil }
        guard let made = try? DeltaPatch.apply(Data(patch), to: Data(baseBytes), maximumSize: targetBytes.count), made == Data(targetBytes) else {
            return nil
        }
        return patch
    }

    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
        for entry in page.entries {
            for object in try entry.objects() { try await mirror(object, of: entry) }
        }
        let pack = try TreeObject.pack(ofPage: sha256)
        guard !page.packMembers.isEmpty, try !folder.contains(pack) else { return }
        guard let bytes = try page.pack(reading: { member in try folder.read(try member.object) }) else {
            throw MirrorError("a file of the page \(sha256) is missing from the folder")
        }
        try folder.place(pack, bytes: bytes)
    }

    private static func check(_ bytes: [UInt8], object: TreeObject, sha256: String) throws {
        guard Hex.string(SHA256.hash(data: bytes)) == sha256 else { throw MirrorError("\(object) does not have the SHA-256 its name says") }
    }

    /// One object an entry names: a file checked against the SHA-256 and size the entry lists,
    /// or the block pack, checked against the block index. A source without a listed patch
    /// costs its clients a larger download, nothing more.
    private func mirror(_ named: ReleaseEntry.Object, of entry: ReleaseEntry) async throws {
        guard try !folder.contains(named.object) else { return }
        guard let sha256 = named.sha256, let size = named.size else { return try await mirrorBlockPack(of: entry, at: named.object) }
        guard let file = try await source.file(named.object, sha256: sha256, size: size) else {
            if named.required { throw MirrorError("the source has no \(named.object)") }
            return
        }
        try folder.place(named.object, from: FilePath(file.path))
        try FileManager.default.removeItem(at: file)
    }

    /// `/blobs/{sha256}.zblocks`, which no release lists by hash: each block must unpack to the
    /// block the verified index lists.
    private func mirrorBlockPack(of entry: ReleaseEntry, at object: TreeObject) async throws {
        guard let indexBytes = try folder.read(try .blockIndex(of: entry.sha256)), let index = try? BlockIndex(decoding: indexBytes) else {
            throw MirrorError("the block index of \(entry.path) cannot be read")
        }
        let offsets = index.packedOffsets()
        guard let packed = try await source.document(object) else { throw MirrorError("the source has no \(object)") }
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
