import DepotHTTP
import GRDB

extension BlobIndex {
    /// Records a blob uploaded for a release not committed yet, so the commit can name it.
    public func recordUpload(_ blob: BlobRecord, now: HTTPDate) async throws {
        try await recordUploads([blob], now: now)
    }

    /// Records blobs uploaded together (a batch), in one transaction.
    public func recordUploads(_ blobs: [BlobRecord], now: HTTPDate) async throws {
        try await database.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO uploaded_blob (sha256, size, md5, gzip_size, gzip_sha256, uploaded_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(sha256) DO UPDATE SET uploaded_at = excluded.uploaded_at
                    """
            )
            for blob in blobs {
                try statement.execute(arguments: [blob.sha256, blob.size, blob.md5, blob.gzip?.size, blob.gzip?.sha256, now.secondsSince1970])
            }
        }
    }

    /// What the catalog knows of the blob `sha256`: from an upload or from a version; `nil`
    /// when neither names it. Whether its file is still stored is for the store to say.
    public func blobRecord(sha256: String) async throws -> BlobRecord? {
        try await blobRecords([sha256])[sha256]
    }

    /// What the catalog knows of each of `hashes` it knows, as ``blobRecord(sha256:)`` says: one
    /// indexed lookup a hash, a few hundred hashes a query.
    public func blobRecords(_ hashes: some Collection<String>) async throws -> [String: BlobRecord] {
        let hashes = Array(hashes)
        return try await database.read { db in
            var records: [String: BlobRecord] = [:]
            for start in stride(from: 0, to: hashes.count, by: 500) {
                let chunk = Array(hashes[start..<min(start + 500, hashes.count)])
                let marks = databaseQuestionMarks(count: chunk.count)
                let columns = "sha256, size, md5, gzip_size, gzip_sha256"
                let uploads = try Row.fetchAll(
                    db,
                    sql: "SELECT \(columns) FROM uploaded_blob WHERE sha256 IN (\(marks))",
                    arguments: StatementArguments(chunk)
                )
                let rows = uploads + (try VersionTables.blobRows(chunk, columns: columns, in: db))
                for row in rows {
                    let gzipSize: Int64? = row["gzip_size"]
                    let gzipSHA256: String? = row["gzip_sha256"]
                    let record = BlobRecord(
                        sha256: row["sha256"],
                        md5: row["md5"],
                        size: row["size"],
                        gzip: gzipSize.flatMap { size in gzipSHA256.map { BlobRecord.GzipVariant(sha256: $0, size: size) } }
                    )
                    records[record.sha256] = records[record.sha256] ?? record
                }
            }
            return records
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
