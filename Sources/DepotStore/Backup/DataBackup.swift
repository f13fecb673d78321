import Foundation
import _NIOFileSystem

/// A copy of a data folder that a server can be rebuilt from: `catalog.sqlite` by SQLite's
/// online copy, and every file of `blobs/` (content, gzip variants, block indexes), hard-linked
/// where the two folders share a file system (blobs are immutable), copied otherwise. Safe
/// while the server serves and publishes. Run again into the same folder, it links only the new
/// blobs and removes the ones the data folder no longer has: incremental. It holds no key (the
/// signing keys live outside the data folder).
public enum DataBackup {
    /// What a backup did.
    public struct Outcome: Sendable, Equatable {
        /// Blobs the backup holds.
        public var blobs = 0
        /// Of them, new this run: linked, or copied when linking was not possible.
        public var linked = 0
        public var copied = 0
        /// Removed: gone from the data folder since the last run.
        public var removed = 0
    }

    /// Copies `data` into `backup` (made when missing).
    ///
    /// The catalog is copied first, then the blobs; any blob the copy names that the blob pass
    /// did not see (uploaded meanwhile) is linked after, and one still missing (collected
    /// meanwhile) fails the backup with a line saying to run it again.
    public static func backup(data: URL, to backup: URL) async throws -> Outcome {
        let manager = FileManager.default
        try manager.createDirectory(at: backup.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        let catalogPath = backup.appendingPathComponent("catalog.sqlite")
        let partial = backup.appendingPathComponent("catalog.sqlite.partial")
        try? manager.removeItem(at: partial)
        let referenced = try Catalog.copy(data.appendingPathComponent("catalog.sqlite").path, into: partial.path)
        try SystemSynchronize(FilePath(partial.path))
        try SystemRename(FilePath(partial.path), to: FilePath(catalogPath.path))

        var outcome = Outcome()
        let source = data.appendingPathComponent("blobs")
        let present = try blobNames(in: source)
        let held = try blobNames(in: backup.appendingPathComponent("blobs"))
        for name in present.subtracting(held) { try link(name, from: source, to: backup, outcome: &outcome) }
        for sha256 in referenced.subtracting(present) {
            guard manager.fileExists(atPath: Self.path(of: sha256, in: source).path) else {
                throw StoreError(.io, "The blob \(sha256) the catalog names left the data folder during the backup: run the backup again")
            }
            try link(sha256, from: source, to: backup, outcome: &outcome)
        }
        for name in held.subtracting(present).subtracting(referenced) {
            try manager.removeItem(at: Self.path(of: name, in: backup.appendingPathComponent("blobs")))
            outcome.removed += 1
        }
        outcome.blobs = try blobNames(in: backup.appendingPathComponent("blobs")).count
        #if os(Linux)
        try SystemSynchronizeFileSystem(of: FilePath(backup.path))
        #else
        try SystemSynchronize(FilePath(backup.path))
        #endif
        return outcome
    }

    /// The names of the files in `blobs/xx/` folders.
    static func blobNames(in blobs: URL) throws -> Set<String> {
        let manager = FileManager.default
        guard manager.fileExists(atPath: blobs.path) else { return [] }
        var names: Set<String> = []
        for shard in try manager.contentsOfDirectory(atPath: blobs.path) where shard.count == 2 {
            for name in try manager.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path) where name.hasPrefix(shard) {
                names.insert(name)
            }
        }
        return names
    }

    /// Where the blob file `name` (a SHA-256, with any suffix) lives below `blobs`.
    static func path(of name: String, in blobs: URL) -> URL {
        blobs.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name)
    }

    /// Hard-links the blob file `name` of `blobs` into `folder`'s `blobs/`, or copies it (a
    /// backup's, or a restore's), counting which in `outcome`.
    static func link(_ name: String, from blobs: URL, to folder: URL, outcome: inout Outcome) throws {
        if try DataFolder.linkOrCopy(path(of: name, in: blobs), to: path(of: name, in: folder.appendingPathComponent("blobs"))) {
            outcome.linked += 1
        } else {
            outcome.copied += 1
        }
    }
}
