import Crypto
import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Writes the manifest document inside the transaction that changes what is live, so the
/// manifest and the live files never disagree.
enum ManifestBuilder {
    /// Rebuilds the manifest from the live files; returns its new serial.
    @discardableResult
    static func rebuild(now: Int64, in db: Database) throws -> Int64 {
        let live = try FileVersion.fetchAll(
            db,
            sql: """
                SELECT file_version.* FROM channel_file JOIN file_version USING (path, version)
                WHERE channel = ? ORDER BY path
                """,
            arguments: [ChannelName.default]
        )
        let serial = (try StoredManifest.fetch(db)?.serial ?? 0) + 1
        try store(serial: serial, files: live, now: now, in: db)
        return serial
    }

    static func store(serial: Int64, files: [FileVersion], now: Int64, in db: Database) throws {
        let deltas = Dictionary(grouping: try DeltaRecord.all(in: db), by: \.toSHA256)
        let manifest = Manifest(
            serial: serial,
            generatedAt: HTTPDate(secondsSince1970: now).imfFixdate,
            files: files.map { entry($0, deltas: deltas[$0.sha256] ?? []) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        let document = Array(try encoder.encode(manifest)) + [UInt8(ascii: "\n")]
        let sha256 = SHA256.hash(data: document).hexString
        try db.execute(
            sql: """
                INSERT INTO manifest (id, serial, document, sha256, generated_at) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET serial = excluded.serial, document = excluded.document,
                    sha256 = excluded.sha256, generated_at = excluded.generated_at
                """,
            arguments: [serial, Data(document), sha256, now]
        )
    }

    static func entry(_ file: FileVersion, deltas: [DeltaRecord]) -> Manifest.Entry {
        Manifest.Entry(
            path: file.path,
            version: file.version,
            size: file.size,
            sha256: file.sha256,
            md5: file.md5,
            etag: EntityTag(opaqueTag: file.sha256)!.description,
            lastModified: file.lastModified.imfFixdate,
            contentType: file.contentType,
            url: "/files/" + RequestPath.encode(file.path),
            blob: "/blobs/\(file.sha256)",
            gzip: file.blob.gzip.map { Manifest.Gzip(url: "/blobs/\(file.sha256).gz", size: $0.size, sha256: $0.sha256) },
            deltas: deltas.isEmpty ? nil : deltas.map { Manifest.Delta(from: $0.fromSHA256, url: $0.url, size: $0.size, sha256: $0.blobSHA256) }
        )
    }
}

extension StoredManifest {
    static func fetch(_ db: Database) throws -> StoredManifest? {
        guard let row = try Row.fetchOne(db, sql: "SELECT serial, document, sha256, generated_at FROM manifest WHERE id = 1") else {
            return nil
        }
        let document: Data = row["document"]
        return StoredManifest(serial: row["serial"], document: Array(document), sha256: row["sha256"], generatedAt: row["generated_at"])
    }
}
