import GRDB

extension Maintenance {
    /// Writes a consistent copy of the catalog at `source` to `path` (which must not exist)
    /// with SQLite's `VACUUM INTO`, through a read-only connection: one read of a snapshot while
    /// the server serves and publishes. The catalog is not opened as ``Catalog`` does (no
    /// migration, no write): a `depot backup` of another version never changes a live catalog.
    /// Returns the blobs the copy refers to (``referencedBlobs()``).
    public static func copy(_ source: String, into path: String) throws -> Set<String> {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        try DatabaseQueue(path: source, configuration: configuration).inDatabase { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [path])
        }
        return try DatabaseQueue(path: path, configuration: configuration).read(Self.referencedBlobs(in:))
    }

    /// The name of every blob file the catalog names: ``referencedBlobs()`` (contents, patches,
    /// block indexes and packs, brotli and zstd variants), and `{sha256}.gz` for each content
    /// recorded with a gzip variant, which the store serves from that file: what a restore
    /// must find, each, in a backup.
    public func referencedFiles() async throws -> Set<String> {
        try await database.read { db in
            let gzip = try VersionTables.gzipFiles(in: db).union(try BlobTables.gzipFiles(in: db))
            return try Self.referencedBlobs(in: db).union(gzip)
        }
    }

    /// Reads one row of the releases: the catalog is open and its schema readable. Cheap
    /// whatever the catalog holds, for `/readyz`.
    public func checkReadable() async throws {
        _ = try await database.read { try ReleaseTables.newestRelease(in: $0) }
    }

    /// SQLite's `PRAGMA integrity_check`: `ok`, or the first problems it found.
    public func integrityCheck() async throws -> String {
        try await database.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check(20)").joined(separator: "; ")
        }
    }

    /// Raises every channel's serial by `margin`: a restored origin then signs documents with
    /// serials above those it signed after the backup was taken (up to `margin` changes), so no
    /// client refuses them as replays.
    public func raiseSerials(by margin: Int64) async throws {
        try await database.write { db in
            try ReleaseTables.raiseSerials(by: margin, in: db)
        }
    }
}
