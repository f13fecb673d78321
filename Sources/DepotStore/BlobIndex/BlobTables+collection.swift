import GRDB

extension BlobTables {
    /// Adds to `table` (a temporary table of one `sha256` column) the contents recorded uploads
    /// and the public folder's files hold: what keeps its patches, block index and variants
    /// beside the versions.
    static func addHeldContents(to table: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO \(table) (sha256) SELECT sha256 FROM uploaded_blob UNION SELECT sha256 FROM public_file")
    }

    /// Forgets the patches to, block indexes and variants of every content not in `table` (a
    /// temporary table of one `sha256` column).
    static func forgetDerivedContent(notIn table: String, in db: Database) throws {
        let unkept = "NOT IN (SELECT sha256 FROM \(table))"
        let orphans = try String.fetchSet(
            db,
            sql: """
                SELECT to_sha256 FROM file_delta WHERE to_sha256 \(unkept) UNION SELECT sha256 FROM block_index WHERE sha256 \(unkept)
                UNION SELECT sha256 FROM content_variant WHERE sha256 \(unkept)
                """
        )
        for sha256 in orphans {
            try db.execute(sql: "DELETE FROM file_delta WHERE to_sha256 = ?", arguments: [sha256])
            try db.execute(sql: "DELETE FROM block_index WHERE sha256 = ?", arguments: [sha256])
            try db.execute(sql: "DELETE FROM content_variant WHERE sha256 = ?", arguments: [sha256])
        }
    }

    /// The SHA-256 of every blob a patch, a block index, a variant, a page's pack or a recorded
    /// upload refers to.
    static func referencedBlobs(in db: Database) throws -> Set<String> {
        try String.fetchSet(
            db,
            sql: """
                SELECT blob_sha256 FROM file_delta WHERE blob_sha256 IS NOT NULL
                UNION SELECT sha256 FROM uploaded_blob UNION SELECT index_sha256 FROM block_index
                UNION SELECT packed_sha256 FROM block_index
                UNION SELECT variant_sha256 FROM content_variant WHERE variant_sha256 IS NOT NULL
                UNION SELECT blob_sha256 FROM page_pack WHERE blob_sha256 IS NOT NULL
                """
        )
    }

    /// The gzip files (`{sha256}.gz`) of every recorded upload.
    static func gzipFiles(in db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT sha256 || '.gz' FROM uploaded_blob WHERE gzip_size IS NOT NULL")
    }
}

extension BlobTables {
    /// Forgets the document patches whose target is not in `table` (a temporary table of one
    /// `id` column: the stored releases and pages).
    static func forgetDocumentPatches(notIn table: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM document_delta WHERE target NOT IN (SELECT id FROM \(table))")
    }
}
