import DepotHTTP
import GRDB
import _NIOFileSystem

extension BlobIndex {
    /// The files of the public folder at `folder` (its canonical path) as the last scan
    /// recorded them (``recordPublicFiles(folder:changed:removed:)``).
    public func publicFiles(folder: String) async throws -> [String: PublicFile] {
        try await database.read { db in
            var files: [String: PublicFile] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM public_file WHERE folder = ?", arguments: [folder])
            while let row = try rows.next() {
                let gzipSize: Int64? = row["gzip_size"]
                let gzipSHA256: String? = row["gzip_sha256"]
                let path: String = row["path"]
                files[path] = PublicFile(
                    relativePath: path,
                    blob: BlobRecord(
                        sha256: row["sha256"],
                        md5: row["md5"],
                        size: row["size"],
                        gzip: gzipSize.flatMap { size in gzipSHA256.map { BlobRecord.GzipVariant(sha256: $0, size: size) } }
                    ),
                    lastModified: HTTPDate(secondsSince1970: row["last_modified"]),
                    lastModifiedIsStrong: row["last_modified_strong"],
                    fingerprint: FileFingerprint(
                        device: UInt64(bitPattern: row["device"]),
                        inode: UInt64(bitPattern: row["inode"]),
                        size: row["size"],
                        modified: FileInfo.Timespec(seconds: row["modified_seconds"], nanoseconds: row["modified_nanoseconds"]),
                        statusChanged: FileInfo.Timespec(seconds: row["changed_seconds"], nanoseconds: row["changed_nanoseconds"])
                    )
                )
            }
            return files
        }
    }

    /// Forgets the record of every public folder but `folder`: the server serves another now.
    public func forgetPublicFiles(except folder: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM public_file WHERE folder <> ?", arguments: [folder])
        }
    }

    /// Records the files of the public folder at `folder` after a scan: `changed` paths (new or
    /// changed) are written, `removed` ones deleted, in one transaction; the cost follows the
    /// change.
    public func recordPublicFiles(folder: String, changed: [PublicFile], removed: [String]) async throws {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        try await database.write { db in
            for path in removed {
                try db.execute(sql: "DELETE FROM public_file WHERE folder = ? AND path = ?", arguments: [folder, path])
            }
            for file in changed {
                let f = file.fingerprint
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO public_file (folder, path, sha256, md5, size, gzip_sha256, gzip_size, last_modified,
                            last_modified_strong, device, inode, modified_seconds, modified_nanoseconds, changed_seconds, changed_nanoseconds)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        folder, file.relativePath, file.blob.sha256, file.blob.md5, file.blob.size, file.blob.gzip?.sha256, file.blob.gzip?.size,
                        file.lastModified.secondsSince1970, file.lastModifiedIsStrong, Int64(bitPattern: f.device), Int64(bitPattern: f.inode),
                        f.modified.seconds, f.modified.nanoseconds, f.statusChanged.seconds, f.statusChanged.nanoseconds,
                    ]
                )
            }
        }
    }
}
