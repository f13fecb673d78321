import DepotManifest
import GRDB

/// The collision rules of ``PortablePath``, checked against one channel's files with index
/// lookups on `channel_file(channel, key)`.
extension VersionTables {
    /// The channel's path that `path` names as Swift compares strings (canonical equivalence),
    /// in the spelling the catalog stores; `nil` when there is none.
    static func livePath(equalTo path: String, channel: String, in db: Database) throws -> String? {
        try livePaths(withKey: PortablePath.collisionKey(path), channel: channel, in: db).first { $0 == path }
    }

    /// The channel's paths whose collision key is `key`: one, or in catalogs written before paths
    /// were normalized, the Unicode spellings of one name.
    static func livePaths(withKey key: String, channel: String, in db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT path FROM channel_file WHERE channel = ? AND key = ?"), arguments: [channel, key])
    }

    /// The path a publish of `path` goes to: `path`, or the stored spelling of the same live path.
    /// Throws a conflict when it collides with a live path (same key, other path), or when it or
    /// one of its folders is a live file's folder or a live file. Each check is an index lookup.
    static func pathForPublishing(_ path: String, channel: String, in db: Database) throws -> String {
        let key = PortablePath.collisionKey(path)
        let sameKey = try livePaths(withKey: key, channel: channel, in: db)
        if let same = sameKey.first(where: { $0 == path }) { return same }
        if let other = sameKey.first { throw collision(of: path, with: other) }
        for folder in PortablePath.ancestors(key) {
            if let file = try livePaths(withKey: folder, channel: channel, in: db).first { throw collision(of: path, with: file) }
        }
        // Keys inside the folder `key`: from `key/` up to, not including, `key0` ('0' follows '/').
        if let inside = try String.fetchOne(
            db.cachedStatement(sql: "SELECT path FROM channel_file WHERE channel = ? AND key > ? AND key < ? LIMIT 1"),
            arguments: [channel, key + "/", key + "0"]
        ) {
            throw collision(of: path, with: inside)
        }
        return path
    }

    /// The conflict of publishing `path` beside the live `other`: the same name in another
    /// letter case or Unicode form, a file where `path` needs a folder, or a file inside the
    /// folder `path` would be.
    static func collision(of path: String, with other: String) -> CatalogError {
        let (key, otherKey) = (PortablePath.collisionKey(path), PortablePath.collisionKey(other))
        if key == otherKey {
            return CatalogError("\(path) collides with the live \(other): they differ only in letter case or Unicode form", code: .conflict)
        }
        if otherKey.hasPrefix(key + "/") {
            return CatalogError("\(path) is a folder of the live \(other), so it cannot be a file", code: .conflict)
        }
        return CatalogError("\(path) needs the folder \(other), which is a live file", code: .conflict)
    }

    /// Gives every channel row without a collision key and bucket its own: catalogs older than
    /// migration 0004.
    static func fillMissingPathKeys(in db: Database) throws {
        let missing = try Row.fetchAll(db, sql: "SELECT channel, path, version FROM channel_file WHERE key IS NULL OR bucket IS NULL")
        for row in missing {
            try ReleaseWriter.setRow(channel: row["channel"], path: row["path"], version: row["version"], in: db)
        }
    }
}
