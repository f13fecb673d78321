import DepotHTTP
import DepotManifest
import GRDB

/// A catalog rebuilt from a published tree (``Maintenance``'s import): the patches, variants and
/// block indexes the tree lists, in the caller's transaction.
extension BlobTables {
    /// Records the patches to `entry`'s content and its brotli and zstd variants as the entry
    /// names them.
    static func importDerived(of entry: ReleaseEntry, in db: Database) throws {
        for patch in entry.patches ?? [] {
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO file_delta (from_sha256, to_sha256, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [patch.from, entry.sha256, patch.sha256, patch.size, Maintenance.seconds(entry.lastModified)])
        }
        for coding in [ContentCoding.br, .zstd] {
            guard let variant = entry.variant(coding) else { continue }
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO content_variant (sha256, coding, variant_sha256, size, settings, created_at)
                    VALUES (?, ?, ?, ?, 'imported', ?)
                    """
            ).execute(arguments: [entry.sha256, coding.rawValue, variant.sha256, variant.size, Maintenance.seconds(entry.lastModified)])
        }
    }

    /// Records the block index of the content `sha256`: the index file and the block pack,
    /// both stored as blobs named by their own SHA-256.
    static func importBlockIndex(
        of sha256: String,
        index: (sha256: String, size: Int64),
        packed: (sha256: String, size: Int64),
        at: Int64,
        in db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO block_index (sha256, index_sha256, index_size, packed_sha256, packed_size, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [sha256, index.sha256, index.size, packed.sha256, packed.size, at]
        )
    }

    /// Forgets the patches of `unheld` (pairs of from and to SHA-256) the tree's pages list but
    /// the tree does not hold: the rebuilt origin makes them again on request, or never.
    static func forgetPatches(_ unheld: [(from: String, to: String)], in db: Database) throws {
        for pair in unheld {
            try db.execute(sql: "DELETE FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ?", arguments: [pair.from, pair.to])
        }
    }
}
