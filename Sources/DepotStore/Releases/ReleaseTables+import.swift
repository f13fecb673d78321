import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// A catalog rebuilt from a published tree (``Maintenance``'s import): the releases, pages,
/// versions and channels, in the caller's transaction.
extension ReleaseTables {
    /// Stores `release` and each version its pages list; `channel` is the channel the release is
    /// recorded as published to.
    static func importRelease(_ release: Maintenance.ImportedRelease, channel: String, in db: Database) throws {
        for page in release.pages {
            try db.execute(
                sql: "INSERT OR IGNORE INTO release_page (sha256, document, created_at) VALUES (?, ?, ?)",
                arguments: [page.sha256, Data(page.bytes), Maintenance.seconds(release.document.createdAt)]
            )
            for entry in page.page.entries { try importVersion(entry, in: db) }
        }
        try db.execute(
            sql: """
                INSERT INTO release (id, number, parent, channel, created_at, files, bytes, page_bits, document)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                release.id, release.document.number, release.document.parent, channel, Maintenance.seconds(release.document.createdAt),
                release.document.files, release.document.bytes, release.document.pageBits, Data(release.bytes),
            ]
        )
    }

    /// Stores the version `entry` lists, with its patches and variants (``BlobIndex``); each
    /// exactly once.
    private static func importVersion(_ entry: ReleaseEntry, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO file_version (path, version, size, sha256, md5, content_type, published_at, last_modified_is_strong,
                    gzip_size, gzip_sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                """
        ).execute(arguments: [
            entry.path, entry.version, entry.size, entry.sha256, entry.md5, entry.contentType, Maintenance.seconds(entry.lastModified),
            entry.gzip?.size, entry.gzip?.sha256,
        ])
        if db.changesCount == 0 {
            let stored = try String.fetchOne(
                db.cachedStatement(sql: "SELECT sha256 FROM file_version WHERE path = ? AND version = ?"),
                arguments: [entry.path, entry.version]
            )
            guard stored == entry.sha256 else {
                throw CatalogError("\(entry.path) version \(entry.version) has two contents in the tree's releases", code: .conflict)
            }
            return
        }
        try BlobTables.importDerived(of: entry, in: db)
    }

    /// Points `document`'s channel where it points, at `serial`: its fallbacks first in the
    /// channel's history, then its release; the releases get the critical flags and minimum
    /// versions the document signs. Returns the channel's release.
    static func importChannel(_ document: ChannelDocument, serial: Int64, now: Int64, in db: Database) throws -> ReleaseSummary {
        let channel = document.channel
        try markImported(document.release, critical: document.critical, minimum: document.minimumClientVersion, in: db)
        let fallbacks = document.fallbacks ?? []
        for (offset, fallback) in fallbacks.reversed().enumerated() {
            try markImported(fallback.release, critical: nil, minimum: fallback.minimumClientVersion, in: db)
            try db.execute(
                sql: "INSERT INTO channel_event (channel, serial, release, kind, detail, at) VALUES (?, ?, ?, 'publish', 'imported', ?)",
                arguments: [channel, serial - Int64(fallbacks.count - offset), fallback.release, now]
            )
        }
        try db.execute(
            sql: "INSERT INTO channel_event (channel, serial, release, kind, detail, at) VALUES (?, ?, ?, 'publish', 'imported', ?)",
            arguments: [channel, serial, document.release, now]
        )
        try db.execute(
            sql: "INSERT INTO channel (name, release, serial, updated_at) VALUES (?, ?, ?, ?)",
            arguments: [channel, document.release, serial, now]
        )
        guard let release = try ReleaseSummary.fetch(id: document.release, in: db) else {
            throw CatalogError("The tree lacks the release \(document.release) of \(channel)", code: .notFound)
        }
        for page in try ReleaseWriter.document(of: release, in: db).pages {
            for entry in try ReleaseWriter.page(page, in: db).entries {
                try ReleaseWriter.setRow(channel: channel, path: entry.path, version: entry.version, in: db)
            }
        }
        return release
    }

    /// Gives `release` the critical flag and minimum app version a channel's document signs.
    static func markImported(_ release: String, critical: Bool?, minimum: String?, in db: Database) throws {
        try db.execute(
            sql: "UPDATE release SET critical = ?, minimum_client_version = ? WHERE id = ?",
            arguments: [critical ?? false, minimum, release]
        )
    }

    /// Ends an import: each path's version sequence continues from the highest version the tree
    /// lists, and a `Last-Modified` is strong unless an earlier version of its path shares its
    /// second (as a publish decides).
    static func finishImport(in db: Database) throws {
        try db.execute(sql: "INSERT INTO path_sequence (path, last_version) SELECT path, MAX(version) FROM file_version GROUP BY path")
        try db.execute(
            sql: """
                UPDATE file_version SET last_modified_is_strong = NOT EXISTS (
                    SELECT 1 FROM file_version e
                    WHERE e.path = file_version.path AND e.version < file_version.version AND e.published_at = file_version.published_at)
                """
        )
    }
}
