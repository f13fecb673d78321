import DepotManifest
import DepotStore
import _NIOFileSystem

/// The store as an ``DepotStore/ExportSource``: documents from the catalog, files from the
/// blob store, placed as hard links where the folder is on the same file system.
struct StoreExportSource: ExportSource {
    let catalog: Catalog
    let store: BlobStore

    func releaseDocument(_ id: String) async throws -> [UInt8]? {
        try await catalog.releaseDocument(id: id)?.bytes
    }

    func pageDocument(_ sha256: String) async throws -> [UInt8] {
        guard let page = try await catalog.pageDocument(sha256: sha256) else { throw StoreError(.invalidInput, "The page \(sha256) is not stored") }
        return page.bytes
    }

    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
        try await catalog.documentDelta(from: base, to: target)?.patch
    }

    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
        var files: [(path: String, source: FilePath)] = []
        for entry in page.entries {
            files.append(("blobs/\(entry.sha256)", store.path(forSHA256: entry.sha256)))
            if entry.gzip != nil { files.append(("blobs/\(entry.sha256).gz", store.gzipPath(forSHA256: entry.sha256))) }
            if entry.blocks != nil, !folder.contains("blobs/\(entry.sha256).zblocks"), let index = try await catalog.blockIndex(of: entry.sha256) {
                files.append(("blobs/\(entry.sha256).blocks", store.path(forSHA256: index.indexSHA256)))
                files.append(("blobs/\(entry.sha256).zblocks", store.path(forSHA256: index.packedSHA256)))
            }
            for patch in entry.patches ?? [] {
                files.append(("deltas/\(patch.from)/\(entry.sha256)", store.path(forSHA256: patch.sha256)))
            }
        }
        var pack: [UInt8]?
        if !page.packMembers.isEmpty, !folder.contains("packs/\(sha256)") {
            pack = try await PublishedContent.packBytes(of: page, store: store)
            guard pack != nil else { throw StoreError(.invalidInput, "A file of the page \(sha256) is not stored") }
        }
        try await folder.blocking { [files, pack] folder in
            for file in files { try folder.place(file.path, from: file.source) }
            if let pack { try folder.place("packs/\(sha256)", bytes: pack) }
        }
    }
}
