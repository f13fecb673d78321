import GRDB

extension ReleaseStore {
    /// Refuses a catalog whose release numbers or serials, raised by the margins, would pass
    /// what Depot ever makes (``ImportLimits/largest``, 2^53): a restored backup's catalog is
    /// read, not trusted, and a number near Int64's end would overflow the raise.
    public func checkMargins(serial serialMargin: Int64, releases releaseMargin: Int64) async throws {
        let (newest, serial) = try await database.read { db in
            (try ReleaseWriter.newestNumber(in: db), try Int64.fetchOne(db, sql: "SELECT MAX(serial) FROM channel") ?? 0)
        }
        let largest = ImportLimits.largest
        guard (0...largest - releaseMargin).contains(newest), (0...largest - serialMargin).contains(serial) else {
            throw StoreError(.invalidInput, "The catalog holds release \(newest) or serial \(serial), beyond what Depot makes: it is damaged")
        }
    }

    /// Raises the number the next release may take to `margin` past the newest release held
    /// (migration 0013): a catalog restored from a backup or imported from a mirror then never
    /// gives a release the number one it may have missed had (a release published after the
    /// backup, or that the mirror had not copied), up to `margin` releases. Returns the lowest
    /// number the next release can take.
    @discardableResult
    public func raiseReleaseFloor(by margin: Int64) async throws -> Int64 {
        try await database.write { db in
            let floor = try ReleaseWriter.newestNumber(in: db) + margin
            try db.execute(
                sql: "INSERT INTO release_floor (id, number) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET number = MAX(number, ?1)",
                arguments: [floor]
            )
            return try ReleaseWriter.nextNumber(in: db)
        }
    }
}

extension ReleaseWriter {
    /// The newest release's number, or the floor a restore or import set, whichever is higher.
    static func newestNumber(in db: Database) throws -> Int64 {
        let newest = try Int64.fetchOne(db, sql: "SELECT MAX(number) FROM release") ?? 0
        let floor = try Int64.fetchOne(db, sql: "SELECT number FROM release_floor WHERE id = 1") ?? 0
        return max(newest, floor)
    }

    /// The number the next release takes: one past ``newestNumber(in:)``.
    static func nextNumber(in db: Database) throws -> Int64 { try newestNumber(in: db) + 1 }
}
