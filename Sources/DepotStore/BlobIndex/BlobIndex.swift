import GRDB

/// What the catalog knows of blobs beside the releases: recorded uploads (`uploaded_blob`),
/// patches (`file_delta`, `document_delta`), block indexes (`block_index`), brotli and zstd
/// variants (`content_variant`), pages' packs (`page_pack`) and the public folder's files
/// (`public_file`). It owns those tables' SQL.
public struct BlobIndex: Sendable {
    let catalog: Catalog

    /// The catalog's pool: the store's SQL runs in its transactions.
    var database: DatabasePool { catalog.database }

    /// The blob index of `catalog`.
    public init(_ catalog: Catalog) {
        self.catalog = catalog
    }
}
