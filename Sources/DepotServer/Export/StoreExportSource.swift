import DepotExport
import DepotManifest
import DepotStore
import _NIOFileSystem

/// The store as an ``DepotExport/ExportSource``: documents from the catalog, files from the
/// blob store, placed as hard links where the folder is on the same file system.
struct StoreExportSource: ExportSource {
    let releases: ReleaseStore
    let blobs: BlobIndex
    let store: BlobStore

    func releaseDocument(_ id: String) async throws -> [UInt8]? {
        try await releases.releaseDocument(id: id)?.bytes
    }

    func pageDocument(_ sha256: String) async throws -> [UInt8] {
        guard let page = try await releases.pageDocument(sha256: sha256) else { throw StoreError(.invalidInput, "The page \(sha256) is not stored") }
        return page.bytes
    }

    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]? {
        try await blobs.documentDelta(from: base, to: target)?.patch
    }

    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws {
        var files: [(object: TreeObject, source: FilePath)] = []
        for entry in page.entries {
            let index = entry.blocks == nil ? nil : try await blobs.blockIndex(of: entry.sha256)
            for named in try entry.objects() {
                let source: FilePath? =
                    switch named.object.kind {
                    case .blob, .brotli, .zstd, .delta: named.sha256.map(store.path(forSHA256:))
                    case .gzip: store.gzipPath(forSHA256: entry.sha256)
                    case .blockIndex: index.map { store.path(forSHA256: $0.indexSHA256) }
                    case .blockPack: index.map { store.path(forSHA256: $0.packedSHA256) }
                    default: nil
                    }
                if let source { files.append((named.object, source)) }
            }
        }
        let (packObject, brotliObject) = (try TreeObject.pack(ofPage: sha256), try TreeObject.brotliPack(ofPage: sha256))
        var pack: [UInt8]?
        if !page.packMembers.isEmpty, try !folder.contains(packObject) {
            pack = try await PublishedContent.packBytes(of: page, store: store)
            guard pack != nil else { throw StoreError(.invalidInput, "A file of the page \(sha256) is not stored") }
        }
        let brotliPack = try folder.contains(brotliObject) ? nil : try await PublishedContent.brotliPackBytes(of: page, store: store)
        try await folder.blocking { [files, pack, brotliPack] folder in
            for file in files { try folder.place(file.object, from: file.source) }
            if let pack { try folder.place(packObject, bytes: pack) }
            if let brotliPack { try folder.place(brotliObject, bytes: brotliPack) }
        }
    }
}
