import GRDB

extension ReleaseTables {
    /// Raises every channel's serial by `margin`: the newest event carries the serial (the next
    /// is its serial + 1), and the channel row repeats it; the history's shape is kept.
    static func raiseSerials(by margin: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE channel_event SET serial = serial + ?1
                WHERE serial = (SELECT MAX(e.serial) FROM channel_event e WHERE e.channel = channel_event.channel)
                """,
            arguments: [margin]
        )
        try db.execute(sql: "UPDATE channel SET serial = serial + ?", arguments: [margin])
    }

    /// The number and creation time of the newest release, if any.
    static func newestRelease(in db: Database) throws -> (number: Int64, createdAt: Int64)? {
        try Row.fetchOne(db, sql: "SELECT number, created_at FROM release ORDER BY number DESC LIMIT 1").map { ($0["number"], $0["created_at"]) }
    }

    /// The id of every stored release.
    static func releaseIDs(in db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT id FROM release")
    }

    /// The SHA-256 of every stored page.
    static func pageHashes(in db: Database) throws -> Set<String> {
        try String.fetchSet(db, sql: "SELECT sha256 FROM release_page")
    }

    /// Adds to `table` (a temporary table of one `id` column) the id of every stored release and
    /// the SHA-256 of every stored page.
    static func addDocuments(to table: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO \(table) (id) SELECT id FROM release UNION SELECT sha256 FROM release_page")
    }
}
