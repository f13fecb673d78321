import DepotHTTP
import GRDB

extension BlobIndex {
    /// The earlier versions of `path` at each of `distances` back from `target` (1 is the
    /// content before it; each content counted once, newest first) that have no patch, or
    /// record of none, to `target`: what a publish makes patches to `target` from.
    public func patchSources(path: String, target: String, distances: [Int]) async throws -> [FileVersion] {
        try await database.read { db in
            let earlier = try VersionTables.versions(of: path, without: target, in: db)
            let done = try String.fetchSet(db, sql: "SELECT from_sha256 FROM file_delta WHERE to_sha256 = ?", arguments: [target])
            var seen = Set<String>()
            let distinct = earlier.filter { seen.insert($0.sha256).inserted }
            return Set(distances).sorted().compactMap { distinct.indices.contains($0 - 1) ? distinct[$0 - 1] : nil }
                .filter { !done.contains($0.sha256) }
        }
    }

    /// The version of a path with the content `from` when another version of that path, later
    /// or earlier, has the content `to` and no patch, or record of none, from `from` to `to`
    /// exists: what a patch made on request is made from. Earlier too, so that the installs a
    /// rollback moves back take a patch, not the whole file. Nil for any other pair, which no
    /// request can have made: the pairs are the versions the catalog keeps of one path.
    public func onRequestPatchSource(from: String, to: String) async throws -> FileVersion? {
        guard from != to else { return nil }
        return try await database.read { db in
            let recorded = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ?)",
                arguments: [from, to]
            )
            guard recorded != true else { return nil }
            return try VersionTables.otherVersion(with: from, besides: to, in: db)
        }
    }

    /// Records the patch from `from` to `to`, or (with `blob` nil) that none is worth keeping.
    /// Releases committed after this list it.
    public func recordDelta(from: String, to: String, blob: BlobRecord?, now: HTTPDate) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO file_delta (from_sha256, to_sha256, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(from_sha256, to_sha256) DO UPDATE SET blob_sha256 = excluded.blob_sha256, size = excluded.size
                    """,
                arguments: [from, to, blob?.sha256, blob?.size, now.secondsSince1970]
            )
        }
    }

    /// The stored patch from the content `from` to the content `to`, with that target.
    public func patch(from: String, to: String) async throws -> (patch: DeltaRecord, target: PublishedBlob)? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT blob_sha256, size FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ? AND blob_sha256 IS NOT NULL",
                    arguments: [from, to]
                ),
                let target = try VersionTables.publishedBlob(sha256: to, in: db)
            else { return nil }
            return (DeltaRecord(fromSHA256: from, toSHA256: to, blobSHA256: row["blob_sha256"], size: row["size"]), target)
        }
    }
}
