import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Rows of a catalog rebuilt from a published tree (``DataImport``): the releases, pages and
/// versions as the tree lists them, byte for byte (so every release keeps its id, and a client
/// that holds one gets patches from it), and each channel where its signed document points.
extension Catalog {
    /// One release of the tree: its document's bytes, and its pages'.
    struct ImportedRelease: Sendable {
        let id: String
        let bytes: [UInt8]
        let document: ReleaseDocument
        let pages: [(sha256: String, bytes: [UInt8], page: ReleasePage)]
    }

    /// Stores `release` and each version its pages list, in one transaction; `channel` is the
    /// channel the release is recorded as published to.
    ///
    /// - Throws: ``CatalogError`` `.conflict` when a version the pages list is stored already
    ///   with other content: the tree's releases disagree, and a rebuilt origin would serve
    ///   one path's version with two contents.
    func importRelease(_ release: ImportedRelease, channel: String) async throws {
        try await database.write { db in
            for page in release.pages {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO release_page (sha256, document, created_at) VALUES (?, ?, ?)",
                    arguments: [page.sha256, Data(page.bytes), Self.seconds(release.document.createdAt)]
                )
                for entry in page.page.entries { try Self.importVersion(entry, in: db) }
            }
            try db.execute(
                sql: """
                    INSERT INTO release (id, number, parent, channel, created_at, files, bytes, page_bits, document)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    release.id, release.document.number, release.document.parent, channel, Self.seconds(release.document.createdAt),
                    release.document.files, release.document.bytes, release.document.pageBits, Data(release.bytes),
                ]
            )
        }
    }

    /// Stores the version `entry` lists, with its patches and its brotli and zstd variants as
    /// the entry names them; each exactly once.
    private static func importVersion(_ entry: ReleaseEntry, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO file_version (path, version, size, sha256, md5, content_type, published_at, last_modified_is_strong,
                    gzip_size, gzip_sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                """
        ).execute(arguments: [
            entry.path, entry.version, entry.size, entry.sha256, entry.md5, entry.contentType, seconds(entry.lastModified),
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
        for patch in entry.patches ?? [] {
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO file_delta (from_sha256, to_sha256, blob_sha256, size, created_at) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [patch.from, entry.sha256, patch.sha256, patch.size, seconds(entry.lastModified)])
        }
        for coding in [ContentCoding.br, .zstd] {
            guard let variant = entry.variant(coding) else { continue }
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO content_variant (sha256, coding, variant_sha256, size, settings, created_at)
                    VALUES (?, ?, ?, ?, 'imported', ?)
                    """
            ).execute(arguments: [entry.sha256, coding.rawValue, variant.sha256, variant.size, seconds(entry.lastModified)])
        }
    }

    /// Records the block index of the content `sha256`: the index file and the block pack,
    /// both stored as blobs named by their own SHA-256.
    func importBlockIndex(of sha256: String, index: (sha256: String, size: Int64), packed: (sha256: String, size: Int64), at: Int64) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO block_index (sha256, index_sha256, index_size, packed_sha256, packed_size, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [sha256, index.sha256, index.size, packed.sha256, packed.size, at]
            )
        }
    }

    /// Forgets the patches of `unheld` (pairs of from and to SHA-256) the tree's pages list but
    /// the tree does not hold: the rebuilt origin makes them again on request, or never.
    func forgetPatches(_ unheld: [(from: String, to: String)]) async throws {
        try await database.write { db in
            for pair in unheld {
                try db.execute(sql: "DELETE FROM file_delta WHERE from_sha256 = ? AND to_sha256 = ?", arguments: [pair.from, pair.to])
            }
        }
    }

    /// Points `document`'s channel where it points, at `serial`: its fallbacks first in the
    /// channel's history (so the next document signed lists them again), then its release; the
    /// releases get the critical flags and minimum versions the document signs. A rollout under
    /// way comes back halted at its percentage, with its salt, so no install changes side
    /// until a person resumes or rolls it back.
    func importChannel(_ document: ChannelDocument, serial: Int64, now: Int64) async throws {
        try await database.write { db in
            let channel = document.channel
            func mark(_ release: String, critical: Bool?, minimum: String?) throws {
                try db.execute(
                    sql: "UPDATE release SET critical = ?, minimum_client_version = ? WHERE id = ?",
                    arguments: [critical ?? false, minimum, release]
                )
            }
            try mark(document.release, critical: document.critical, minimum: document.minimumClientVersion)
            let fallbacks = document.fallbacks ?? []
            for (offset, fallback) in fallbacks.reversed().enumerated() {
                try mark(fallback.release, critical: nil, minimum: fallback.minimumClientVersion)
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
            guard let rollout = document.rollout else { return }
            try mark(rollout.release, critical: rollout.critical, minimum: rollout.minimumClientVersion)
            guard let target = try ReleaseSummary.fetch(id: rollout.release, in: db) else {
                throw CatalogError("The tree lacks the release \(rollout.release) rolled out to \(channel)", code: .notFound)
            }
            let steps = rollout.percent < 100 ? "\(max(rollout.percent, 1)),100" : "100"
            try db.execute(
                sql: """
                    INSERT INTO rollout (channel, release, base, salt, steps, step, percent, state, every_seconds, max_failure_rate, min_reports,
                        auto_rollback, started_at, step_started_at, reason)
                    VALUES (?, ?, ?, ?, ?, 0, ?, 'halted', 3600, 1, 0, 0, ?, ?, ?)
                    """,
                arguments: [
                    channel, target.id, release.id, rollout.salt, steps, rollout.percent, now, now,
                    "imported from a mirror at \(rollout.percent)%, halted: resume or roll back",
                ]
            )
            try Self.recordRolloutFiles(db.lastInsertedRowID, from: release, to: target, in: db)
        }
    }

    /// Ends an import: each path's version sequence continues from the highest version the tree
    /// lists, and a `Last-Modified` is strong unless an earlier version of its path shares its
    /// second (as a publish decides).
    func finishImport() async throws {
        try await database.write { db in
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

    /// Seconds since 1970 of an IMF-fixdate the tree signs or hashes; 0 for one that does not
    /// parse (only a person reads it).
    static func seconds(_ date: String) -> Int64 {
        HTTPDate(parsing: date, now: HTTPDate(secondsSince1970: 0))?.secondsSince1970 ?? 0
    }
}
