import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation
import _NIOFileSystem

/// Puts a backup (``DataBackup``) in place as a new data folder, after checking it whole: the
/// catalog's integrity, every blob it names present, every blob file's bytes against the
/// SHA-256 it is named by (a gzip variant: its content's). Nothing is put in place unless all of
/// it holds; the folder appears by one rename.
public enum DataRestore {
    /// What a restore checked and put in place.
    public struct Outcome: Sendable, Equatable {
        public var blobs = 0
        public var channels = 0
        /// Where the restored catalog stands (``Catalog/finishRebuild(_:releaseMargin:serialMargin:now:)``).
        public var summary: RebuildSummary?
    }

    /// Restores `backup` into `data`, which must not exist or be empty; raises each channel's
    /// serial by `serialMargin` (``Catalog/raiseSerials(by:)``) and the next release's number
    /// by `releaseMargin` past the backup's newest (``Catalog/raiseReleaseFloor(by:)``), and
    /// records the restore in the audit trail.
    public static func restore(from backup: URL, to data: URL, serialMargin: Int64, releaseMargin: Int64, now: Int64) async throws -> Outcome {
        let manager = FileManager.default
        try DataFolder.refuseNonEmpty(data, doing: "restore")
        let catalogPath = backup.appendingPathComponent("catalog.sqlite")
        guard manager.fileExists(atPath: catalogPath.path) else {
            throw StoreError(.invalidInput, "\(backup.path) holds no catalog.sqlite: it is not a depot backup")
        }
        let blobs = backup.appendingPathComponent("blobs")
        let names = try DataBackup.blobNames(in: blobs)
        for name in names.sorted() { try check(name, in: blobs) }

        let staging = try DataFolder.staging(for: data, suffix: "restoring")
        try manager.copyItem(at: catalogPath, to: staging.appendingPathComponent("catalog.sqlite"))
        var outcome = Outcome()
        do {
            let catalog = try Catalog(path: staging.appendingPathComponent("catalog.sqlite").path)
            let integrity = try await catalog.integrityCheck()
            guard integrity == "ok" else { throw StoreError(.invalidInput, "The backup's catalog is damaged: \(integrity.prefix(200))") }
            let missing = try await catalog.referencedBlobs().subtracting(names)
            guard missing.isEmpty else {
                throw StoreError(.invalidInput, "The backup lacks \(missing.count) blob(s) its catalog names, as \(missing.sorted()[0])")
            }
            try await catalog.raiseSerials(by: serialMargin)
            outcome.channels = try await catalog.channels().count
            outcome.summary = try await catalog.finishRebuild("restore", releaseMargin: releaseMargin, serialMargin: serialMargin, now: now)
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
        var placed = DataBackup.Outcome()
        for name in names { try DataBackup.link(name, from: blobs, to: staging, outcome: &placed) }
        outcome.blobs = names.count
        try DataFolder.place(staging, as: data)
        return outcome
    }

    /// Checks the blob file `name`: its bytes have the SHA-256 it is named by, or for
    /// `{sha256}.gz`, they are one gzip member whose content has it.
    static func check(_ name: String, in blobs: URL) throws {
        let path = DataBackup.path(of: name, in: blobs)
        let sha256 = String(name.prefix(64))
        guard ContentAddress.isSHA256(sha256) else { return }
        let bytes = try Data(contentsOf: path)
        let content: [UInt8] = name.hasSuffix(".gz") ? try bytes.withUnsafeBytes { try Gzip.decompress($0) } : Array(bytes)
        guard Hex.string(SHA256.hash(data: content)) == sha256 else {
            throw StoreError(.invalidInput, "The backup's blob \(name) does not have the SHA-256 it is named by: the backup is damaged")
        }
    }
}
