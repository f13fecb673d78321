import DepotHTTP
import DepotManifest

extension ReleaseWriter {
    /// A version as a release lists it, with every stored patch to its content, its block
    /// index and its kept brotli and zstd variants.
    static func entry(
        _ version: FileVersion,
        patches records: [DeltaRecord],
        blocks: BlockIndexRecord?,
        variants: [ContentVariantRecord]
    ) -> ReleaseEntry {
        let patches = records.map { ReleaseEntry.Patch(from: $0.fromSHA256, size: $0.size, sha256: $0.blobSHA256) }
        func kept(_ coding: ContentCoding) -> ReleaseEntry.Variant? {
            variants.first { $0.coding == coding }?.stored.map { ReleaseEntry.Variant(size: $0.size, sha256: $0.sha256) }
        }
        return ReleaseEntry(
            path: version.path,
            version: version.version,
            size: version.size,
            sha256: version.sha256,
            md5: version.md5,
            contentType: version.contentType,
            lastModified: version.lastModified.imfFixdate,
            gzip: version.blob.gzip.map { .init(size: $0.size, sha256: $0.sha256) },
            patches: patches.isEmpty ? nil : patches,
            blocks: blocks.map { .init(size: $0.indexSize, sha256: $0.indexSHA256) },
            brotli: kept(.br),
            zstd: kept(.zstd)
        )
    }
}
