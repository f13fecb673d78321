import Crypto
import DepotDelta
import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

/// Puts a backup (``DataBackup``) in place as a new data folder, after checking it whole: no
/// link anywhere in it, the catalog's integrity, every blob file it names present (gzip,
/// brotli and zstd variants, block indexes and packs included), every blob file's bytes against
/// the SHA-256 it is named by (a gzip variant: its content's). What is checked is what is put in
/// place: the backup's files are first linked (or copied) into the staging folder, and the
/// staged files are checked. Nothing is put in place unless all of it holds; the folder appears
/// by one rename, which never replaces a data folder that appeared meanwhile.
public enum DataRestore {
    /// What a restore checked and put in place.
    public struct Outcome: Sendable, Equatable {
        public var blobs = 0
        public var channels = 0
        /// Where the restored catalog stands (``Maintenance/finishRebuild(_:releaseMargin:serialMargin:now:)``).
        public var summary: RebuildSummary?
    }

    /// Restores `backup` into `data`, which must not exist or be empty; raises each channel's
    /// serial by `serialMargin` (``Maintenance/raiseSerials(by:)``) and the next release's number
    /// by `releaseMargin` past the backup's newest (``ReleaseStore/raiseReleaseFloor(by:)``), and
    /// records the restore in the audit trail. `beforePlacing` runs after every check, just
    /// before the rename (a test's seam).
    public static func restore(
        from backup: URL,
        to data: URL,
        serialMargin: Int64,
        releaseMargin: Int64,
        now: Int64,
        beforePlacing: () async throws -> Void = {}
    ) async throws -> Outcome {
        let place = try DataFolder(data, doing: "restore")
        let notBackup = StoreError(.invalidInput, "\(backup.path) holds no catalog.sqlite: it is not a depot backup")
        guard let source = try? ContainedFolder(root: backup.path, creating: false) else { throw notBackup }
        guard try source.status(of: "catalog.sqlite") != nil else { throw notBackup }
        _ = try source.namesRefusingLinks(in: "")
        let names = try DataBackup.blobNames(in: source)

        let suffix = "restoring"
        let staging = try place.staging(suffix: suffix)
        var outcome = Outcome()
        do {
            try staging.replace("catalog.sqlite", durable: false, copying: "catalog.sqlite", from: source)
            var placed = DataBackup.Outcome()
            for name in names.sorted() {
                try DataBackup.link(name, from: source, to: staging, outcome: &placed)
                try check(name, in: staging)
            }
            let catalog = try Catalog(path: "\(staging.root)/catalog.sqlite")
            let maintenance = Maintenance(catalog)
            let integrity = try await maintenance.integrityCheck()
            guard integrity == "ok" else { throw StoreError(.invalidInput, "The backup's catalog is damaged: \(integrity.prefix(200))") }
            let missing = try await maintenance.referencedFiles().subtracting(names)
            guard missing.isEmpty else {
                throw StoreError(.invalidInput, "The backup lacks \(missing.count) blob file(s) its catalog names, as \(missing.sorted()[0])")
            }
            try await ReleaseStore(catalog).checkMargins(serial: serialMargin, releases: releaseMargin)
            try await maintenance.raiseSerials(by: serialMargin)
            outcome.channels = try await ReleaseStore(catalog).channels().count
            outcome.summary = try await maintenance.finishRebuild("restore", releaseMargin: releaseMargin, serialMargin: serialMargin, now: now)
            outcome.blobs = names.count
            try await place.place(staging, suffix: suffix, beforePlacing: beforePlacing)
        } catch {
            place.discard(suffix: suffix)
            throw error
        }
        return outcome
    }

    /// Checks the blob file `name` of `folder`: its bytes have the SHA-256 it is named by, or for
    /// `{sha256}.gz`, they are one gzip member whose content has it. Read without following a
    /// link.
    static func check(_ name: String, in folder: ContainedFolder) throws {
        let sha256 = String(name.prefix(64))
        guard ContentAddress.isSHA256(sha256) else { return }
        guard let bytes = try folder.read(DataBackup.path(of: name)) else {
            throw StoreError(.invalidInput, "The backup's blob \(name) is missing")
        }
        let content: [UInt8] = name.hasSuffix(".gz") ? try bytes.withUnsafeBytes { try Gzip.decompress($0) } : bytes
        guard Hex.string(SHA256.hash(data: content)) == sha256 else {
            throw StoreError(.invalidInput, "The backup's blob \(name) does not have the SHA-256 it is named by: the backup is damaged")
        }
    }
}
