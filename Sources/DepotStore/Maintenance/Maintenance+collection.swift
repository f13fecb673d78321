import DepotHTTP
import GRDB

extension Maintenance {
    /// Removes versions retired before `cutoff`, and the patches and block indexes of content
    /// that no version, no recorded upload and no writer has any more; returns how many versions
    /// went.
    ///
    /// A publish makes the block index and patches of its new content before its commit adds
    /// the version, holding the content in `store` meanwhile (``BlobStore/held``). The holds are
    /// read inside this transaction: a writer whose rows are already in the catalog took its
    /// hold before writing them, so its rows are spared until it commits or gives up.
    public func removeRetired(before cutoff: HTTPDate, sparingHeldBy store: BlobStore) async throws -> Int {
        try await database.write { db in
            let removed = try VersionTables.removeRetiredVersions(before: cutoff.secondsSince1970, in: db)
            // The contents whose patches, block index and variants stay, gathered by each owner
            // in a temporary table of this transaction (no store's table).
            try db.execute(sql: "CREATE TEMP TABLE kept_content (sha256 TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
            defer { try? db.execute(sql: "DROP TABLE temp.kept_content") }
            try VersionTables.addContents(to: "temp.kept_content", in: db)
            try BlobTables.addHeldContents(to: "temp.kept_content", in: db)
            let hold = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.kept_content (sha256) VALUES (?)")
            for sha256 in store.held { try hold.execute(arguments: [sha256]) }
            try BlobTables.forgetDerivedContent(notIn: "temp.kept_content", in: db)
            return removed
        }
    }

    /// The SHA-256 of every blob a version, a patch, a block index, a variant, a page's pack or a recorded upload refers to, retired
    /// versions included.
    public func referencedBlobs() async throws -> Set<String> {
        try await database.read(Self.referencedBlobs(in:))
    }

    /// ``referencedBlobs()`` in `db`.
    static func referencedBlobs(in db: Database) throws -> Set<String> {
        try VersionTables.contents(in: db).union(try BlobTables.referencedBlobs(in: db))
    }
}
