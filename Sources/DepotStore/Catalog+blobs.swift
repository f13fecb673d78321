import DepotHTTP
import GRDB

extension Catalog {
    /// Records a blob uploaded for a release not committed yet, so the commit can name it.
    public func recordUpload(_ blob: BlobRecord, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO uploaded_blob (sha256, size, md5, gzip_size, gzip_sha256, uploaded_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(sha256) DO UPDATE SET uploaded_at = excluded.uploaded_at
                    """,
                arguments: [blob.sha256, blob.size, blob.md5, blob.gzip?.size, blob.gzip?.sha256, now.secondsSince1970]
            )
        }
    }

    /// What the catalog knows of the blob `sha256`: from an upload or from a version; `nil`
    /// when neither names it. Whether its file is still stored is for the store to say.
    public func blobRecord(sha256: String) async throws -> BlobRecord? {
        try await database.read { db in
            let row =
                try Row.fetchOne(db, sql: "SELECT sha256, size, md5, gzip_size, gzip_sha256 FROM uploaded_blob WHERE sha256 = ?", arguments: [sha256])
                ?? Row.fetchOne(
                    db,
                    sql: "SELECT sha256, size, md5, gzip_size, gzip_sha256 FROM file_version WHERE sha256 = ? LIMIT 1",
                    arguments: [sha256]
                )
            return row.map { row in
                let gzipSize: Int64? = row["gzip_size"]
                let gzipSHA256: String? = row["gzip_sha256"]
                return BlobRecord(
                    sha256: row["sha256"],
                    md5: row["md5"],
                    size: row["size"],
                    gzip: gzipSize.flatMap { size in gzipSHA256.map { BlobRecord.GzipVariant(sha256: $0, size: size) } }
                )
            }
        }
    }

    /// Forgets uploads recorded before `cutoff` that no version took: their blobs are
    /// collected like any unreferenced blob.
    public func forgetUploads(before cutoff: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM uploaded_blob WHERE uploaded_at < ?", arguments: [cutoff.secondsSince1970])
        }
    }
}

extension Catalog {
    /// Which of `hashes` the catalog knows, from an upload or a version: one indexed lookup a
    /// hash, a few hundred a query.
    public func knownBlobs(_ hashes: some Collection<String>) async throws -> Set<String> {
        let hashes = Array(hashes)
        return try await database.read { db in
            var known = Set<String>()
            for start in stride(from: 0, to: hashes.count, by: 500) {
                let chunk = Array(hashes[start..<min(start + 500, hashes.count)])
                let marks = databaseQuestionMarks(count: chunk.count)
                known.formUnion(
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT sha256 FROM uploaded_blob WHERE sha256 IN (\(marks)) UNION SELECT sha256 FROM file_version WHERE sha256 IN (\(marks))",
                        arguments: StatementArguments(chunk + chunk)
                    )
                )
            }
            return known
        }
    }
}
