import GRDB

extension BlobTables {
    /// Every stored patch as `{from}/{to}`: the files' (``DeltaRecord``) and the documents'.
    static func storedPatches(in db: Database) throws -> Set<String> {
        try String.fetchSet(
            db,
            sql: """
                SELECT from_sha256 || '/' || to_sha256 FROM file_delta WHERE blob_sha256 IS NOT NULL
                UNION SELECT source || '/' || target FROM document_delta
                """
        )
    }
}
