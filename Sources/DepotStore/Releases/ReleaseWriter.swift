import Crypto
import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Writes releases and moves channels inside the catalog's write transaction: the pages a change
/// touched, the root, the release row, the channel pointer and its event (docs/releases.md).
enum ReleaseWriter {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Where `channel` points, or `nil` when it has never had a release.
    static func channel(_ name: String, in db: Database) throws -> ChannelState? {
        guard let row = try Row.fetchOne(db, sql: "SELECT release, serial, updated_at FROM channel WHERE name = ?", arguments: [name]),
            let release = try ReleaseSummary.fetch(id: row["release"], in: db)
        else { return nil }
        return ChannelState(
            name: name,
            release: release,
            serial: row["serial"],
            updatedAt: row["updated_at"],
            rollout: try RolloutStore.liveRollout(of: name, in: db)
        )
    }

    /// For a release that needs a minimum app version: the channel's earlier releases, from its
    /// history newest first, that older apps can use, each needing a lower version than the one
    /// before, at most 3. Releases retention removed are skipped.
    static func fallbacks(of channel: String, for release: ReleaseSummary, in db: Database) throws -> [ReleaseSummary] {
        guard var needed = release.minimumClientVersion.flatMap(ClientVersion.init) else { return [] }
        var fallbacks: [ReleaseSummary] = []
        let ids = try String.fetchCursor(
            db,
            sql: "SELECT release FROM channel_event WHERE channel = ? AND kind != 'rollout' ORDER BY serial DESC LIMIT 1000",
            arguments: [channel]
        )
        var seen: Set<String> = [release.id]
        while fallbacks.count < 3, let id = try ids.next() {
            guard seen.insert(id).inserted, let earlier = try ReleaseSummary.fetch(id: id, in: db) else { continue }
            let minimum = earlier.minimumClientVersion.flatMap(ClientVersion.init)
            guard minimum.map({ $0 < needed }) ?? true else { continue }
            fallbacks.append(earlier)
            guard let minimum else { break }
            needed = minimum
        }
        return fallbacks
    }

    /// The root document of `release`.
    static func document(of release: ReleaseSummary, in db: Database) throws -> ReleaseDocument {
        let bytes = try Data.fetchOne(db, sql: "SELECT document FROM release WHERE id = ?", arguments: [release.id]) ?? Data()
        return try JSONDecoder().decode(ReleaseDocument.self, from: bytes)
    }

    static func page(_ sha256: String, in db: Database) throws -> ReleasePage {
        guard let bytes = try Data.fetchOne(db, sql: "SELECT document FROM release_page WHERE sha256 = ?", arguments: [sha256]) else {
            throw CatalogError("The catalog lacks the page \(sha256)")
        }
        return try JSONDecoder().decode(ReleasePage.self, from: bytes)
    }

    /// Makes the channel's files (`channel_file`) a new release built on `base`, re-encoding the
    /// pages of `touchedBuckets` only, unless the number of pages changes; and points the channel
    /// at it. Returns the release and the channel's new serial.
    static func release(
        channel: String,
        base: ReleaseSummary?,
        touchedBuckets: Set<UInt32>,
        files: Int64,
        bytes: Int64,
        critical: Bool = false,
        minimumClientVersion: String? = nil,
        message: String? = nil,
        now: Int64,
        in db: Database
    ) throws -> (ReleaseSummary, Int64) {
        let bits = ReleasePaging.bits(forFileCount: Int(files), previous: base?.pageBits ?? 0)
        var pages: [String]
        if let base, base.pageBits == bits {
            pages = try document(of: base, in: db).pages
            let gained = try ContentVariantRecord.bucketsGainingVariants(channel: channel, since: base.createdAt, in: db)
            for page in Set(touchedBuckets.union(gained).map { ReleasePaging.page(ofBucket: $0, bits: bits) }) {
                pages[page] = try writePage(page, bits: bits, channel: channel, now: now, in: db)
            }
        } else {
            pages = try (0..<(1 << bits)).map { try writePage($0, bits: bits, channel: channel, now: now, in: db) }
        }
        let number = try nextNumber(in: db)
        let document = ReleaseDocument(
            number: number,
            parent: base?.id,
            createdAt: HTTPDate(secondsSince1970: now).imfFixdate,
            files: files,
            bytes: bytes,
            pageBits: bits,
            pages: pages
        )
        let encoded = try encoder.encode(document)
        let id = Hex.string(SHA256.hash(data: encoded))
        try db.execute(
            sql: """
                INSERT INTO release (id, number, parent, channel, created_at, files, bytes, page_bits, document, critical, minimum_client_version, message)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [id, number, base?.id, channel, now, files, bytes, bits, encoded, critical, minimumClientVersion, message]
        )
        guard let release = try ReleaseSummary.fetch(id: id, in: db) else { throw CatalogError("The release \(id) was not stored") }
        let serial = try point(channel, to: release, kind: "publish", restores: nil, now: now, in: db)
        return (release, serial)
    }

    /// Encodes page `page` from the channel's rows, stores it unless an identical page is
    /// stored, and returns its SHA-256.
    static func writePage(_ page: Int, bits: Int, channel: String, now: Int64, in db: Database) throws -> String {
        let buckets = ReleasePaging.buckets(ofPage: page, bits: bits)
        let versions = try FileVersion.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT file_version.* FROM channel_file JOIN file_version USING (path, version)
                    WHERE channel = ? AND bucket BETWEEN ? AND ? ORDER BY path
                    """
            ),
            arguments: [channel, Int64(buckets.lowerBound), Int64(buckets.upperBound)]
        )
        let contents = versions.map(\.sha256)
        let patches = try DeltaRecord.all(to: contents, in: db)
        let blocks = try BlockIndexRecord.fetchAll(for: contents, in: db)
        let variants = try ContentVariantRecord.fetchAll(for: contents, in: db)
        let entries = versions.map {
            entry($0, patches: patches[$0.sha256] ?? [], blocks: blocks[$0.sha256], variants: variants[$0.sha256] ?? [])
        }
        let encoded = try encoder.encode(ReleasePage(entries: entries))
        let sha256 = Hex.string(SHA256.hash(data: encoded))
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO release_page (sha256, document, created_at) VALUES (?, ?, ?)")
            .execute(arguments: [sha256, encoded, now])
        return sha256
    }

    /// Points `channel` at `release` and records the move; returns the channel's new serial.
    @discardableResult
    static func point(
        _ channel: String,
        to release: ReleaseSummary,
        kind: String,
        restores: Int64?,
        detail: String? = nil,
        now: Int64,
        in db: Database
    ) throws -> Int64 {
        let serial = try recordEvent(channel, release: release.id, kind: kind, restores: restores, detail: detail, now: now, in: db)
        try db.execute(
            sql: """
                INSERT INTO channel (name, release, serial, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(name) DO UPDATE SET release = excluded.release, serial = excluded.serial, updated_at = excluded.updated_at
                """,
            arguments: [channel, release.id, serial, now]
        )
        return serial
    }

    /// Adds an event to the channel's history, with the next serial, and returns that serial.
    /// A `rollout` event moves no pointer but changes the channel's document: the caller sets
    /// the channel's serial (``point(_:to:kind:restores:detail:now:in:)`` does for a move).
    static func recordEvent(
        _ channel: String,
        release: String,
        kind: String,
        restores: Int64? = nil,
        detail: String?,
        now: Int64,
        in db: Database
    ) throws -> Int64 {
        let serial = (try Int64.fetchOne(db, sql: "SELECT MAX(serial) FROM channel_event WHERE channel = ?", arguments: [channel]) ?? 0) + 1
        try db.execute(
            sql: "INSERT INTO channel_event (channel, serial, release, kind, restores, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [channel, serial, release, kind, restores, detail, now]
        )
        return serial
    }

    /// How `to` differs from `from` (nothing, when `from` is `nil`): only the pages whose hash
    /// differs are read, unless the two have different numbers of pages.
    static func diff(from: ReleaseSummary?, to: ReleaseSummary, in db: Database) throws -> ReleaseDiff {
        let after = try document(of: to, in: db).pages
        let before = try from.map { try document(of: $0, in: db).pages } ?? []
        var pagesBefore: [String] = []
        var pagesAfter: [String] = []
        if before.count == after.count {
            for (old, new) in zip(before, after) where old != new {
                pagesBefore.append(old)
                pagesAfter.append(new)
            }
        } else {
            pagesBefore = before
            pagesAfter = after
        }
        var old: [String: ReleaseEntry] = [:]
        for sha256 in Set(pagesBefore) {
            for entry in try page(sha256, in: db).entries { old[entry.path] = entry }
        }
        var diff = ReleaseDiff()
        for sha256 in Set(pagesAfter) {
            for entry in try page(sha256, in: db).entries {
                switch old.removeValue(forKey: entry.path) {
                case nil: diff.added.append(entry)
                case let previous? where previous != entry: diff.changed.append((previous, entry))
                default: break
                }
            }
        }
        diff.removed = Array(old.values)
        diff.added.sort { $0.path < $1.path }
        diff.changed.sort { $0.after.path < $1.after.path }
        diff.removed.sort { $0.path < $1.path }
        return diff
    }

    /// Makes the channel's rows those of a release that differs from them by `diff`. Versions a
    /// release refers to are un-retired; a version already removed makes the move fail.
    static func apply(_ diff: ReleaseDiff, to channel: String, in db: Database) throws {
        for entry in diff.removed {
            try db.execute(sql: "DELETE FROM channel_file WHERE channel = ? AND path = ?", arguments: [channel, entry.path])
        }
        for entry in diff.added + diff.changed.map(\.after) {
            try db.execute(
                sql: "UPDATE file_version SET retired_at = NULL WHERE path = ? AND version = ? AND sha256 = ?",
                arguments: [entry.path, entry.version, entry.sha256]
            )
            guard db.changesCount == 1 else {
                throw CatalogError("\(entry.path) version \(entry.version) is no longer kept, so this release cannot be restored", code: .gone)
            }
            try setRow(channel: channel, path: entry.path, version: entry.version, in: db)
        }
    }

    /// Makes `version` the channel's version of `path`.
    static func setRow(channel: String, path: String, version: Int64, in db: Database) throws {
        let key = PortablePath.collisionKey(path)
        try db.cachedStatement(
            sql: """
                INSERT INTO channel_file (channel, path, version, key, bucket) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(channel, path) DO UPDATE SET version = excluded.version, key = excluded.key, bucket = excluded.bucket
                """
        ).execute(arguments: [channel, path, version, key, Int64(ReleasePaging.bucket(ofKey: key))])
    }

    /// Gives a release to every channel that has files but none: catalogs older than releases,
    /// whose live files become release 1 of `stable`.
    static func releaseUnreleasedChannels(now: Int64, in db: Database) throws {
        let channels = try String.fetchAll(
            db,
            sql: "SELECT DISTINCT channel FROM channel_file WHERE channel NOT IN (SELECT name FROM channel) ORDER BY channel"
        )
        for channel in channels {
            let totals = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS files, COALESCE(SUM(size), 0) AS bytes
                    FROM channel_file JOIN file_version USING (path, version) WHERE channel = ?
                    """,
                arguments: [channel]
            )
            _ = try release(
                channel: channel,
                base: nil,
                touchedBuckets: [],
                files: totals?["files"] ?? 0,
                bytes: totals?["bytes"] ?? 0,
                now: now,
                in: db
            )
        }
    }
}
