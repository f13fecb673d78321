import DepotManifest
import Foundation
import GRDB

/// The stored release and page documents, read in the caller's transaction by the stores that
/// derive from them (``BlobIndex``'s document patches and page packs).
extension ReleaseTables {
    /// The release `id` or, failing that, the page `id`, with when it was made.
    static func storedDocument(_ id: String, in db: Database) throws -> ReleaseStore.StoredDocument? {
        try storedDocument(sql: releaseQuery, key: id, in: db) ?? storedDocument(sql: pageQuery, key: id, in: db)
    }

    /// The release document `id`: its bytes, decoded.
    static func releaseDocument(_ id: String, in db: Database) throws -> (bytes: [UInt8], document: ReleaseDocument)? {
        guard let bytes = try Data.fetchOne(db, sql: "SELECT document FROM release WHERE id = ?", arguments: [id]) else { return nil }
        return (Array(bytes), try JSONDecoder().decode(ReleaseDocument.self, from: bytes))
    }

    /// The bytes of the page `sha256`.
    static func pageBytes(_ sha256: String, in db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT document FROM release_page WHERE sha256 = ?", arguments: [sha256]).map(Array.init)
    }

    /// Whether the page `sha256` is stored (retention may have removed it).
    static func pageIsStored(_ sha256: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM release_page WHERE sha256 = ?)", arguments: [sha256]) ?? false
    }

    static let releaseQuery = "SELECT document, created_at FROM release WHERE id = ?"
    static let pageQuery = "SELECT document, created_at FROM release_page WHERE sha256 = ?"

    /// The stored document `sql` reads by `key`.
    static func storedDocument(sql: String, key: String, in db: Database) throws -> ReleaseStore.StoredDocument? {
        try Row.fetchOne(db, sql: sql, arguments: [key]).map { row in
            let bytes: Data = row["document"]
            return ReleaseStore.StoredDocument(bytes: Array(bytes), createdAt: row["created_at"])
        }
    }
}
