import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Rows of a catalog rebuilt from a published tree (``DataImport``): the releases, pages and
/// versions as the tree lists them, byte for byte (so every release keeps its id, and a client
/// that holds one gets patches from it), and each channel where its signed document points.
extension Maintenance {
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
        try await database.write { db in try ReleaseTables.importRelease(release, channel: channel, in: db) }
    }

    /// Records the block index of the content `sha256`: the index file and the block pack,
    /// both stored as blobs named by their own SHA-256.
    func importBlockIndex(of sha256: String, index: (sha256: String, size: Int64), packed: (sha256: String, size: Int64), at: Int64) async throws {
        try await database.write { db in try BlobTables.importBlockIndex(of: sha256, index: index, packed: packed, at: at, in: db) }
    }

    /// Forgets the patches of `unheld` (pairs of from and to SHA-256) the tree's pages list but
    /// the tree does not hold: the rebuilt origin makes them again on request, or never.
    func forgetPatches(_ unheld: [(from: String, to: String)]) async throws {
        try await database.write { db in try BlobTables.forgetPatches(unheld, in: db) }
    }

    /// Points `document`'s channel where it points, at `serial`: its fallbacks first in the
    /// channel's history (so the next document signed lists them again), then its release; the
    /// releases get the critical flags and minimum versions the document signs. A rollout under
    /// way comes back halted at its percentage, with its salt, so no install changes side
    /// until a person resumes or rolls it back.
    func importChannel(_ document: ChannelDocument, serial: Int64, now: Int64) async throws {
        try await database.write { db in
            let channel = document.channel
            let release = try ReleaseTables.importChannel(document, serial: serial, now: now, in: db)
            guard let rollout = document.rollout else { return }
            try ReleaseTables.markImported(rollout.release, critical: rollout.critical, minimum: rollout.minimumClientVersion, in: db)
            guard let target = try ReleaseSummary.fetch(id: rollout.release, in: db) else {
                throw CatalogError("The tree lacks the release \(rollout.release) rolled out to \(channel)", code: .notFound)
            }
            let id = try RolloutStore.importRollout(rollout, channel: channel, base: release, target: target, now: now, in: db)
            try ReleaseTables.recordRolloutFiles(id, from: release, to: target, in: db)
        }
    }

    /// Ends an import: each path's version sequence continues from the highest version the tree
    /// lists, and a `Last-Modified` is strong unless an earlier version of its path shares its
    /// second (as a publish decides).
    func finishImport() async throws {
        try await database.write(ReleaseTables.finishImport(in:))
    }

    /// Seconds since 1970 of an IMF-fixdate the tree signs or hashes; 0 for one that does not
    /// parse (only a person reads it).
    static func seconds(_ date: String) -> Int64 {
        HTTPDate(parsing: date, now: HTTPDate(secondsSince1970: 0))?.secondsSince1970 ?? 0
    }
}
