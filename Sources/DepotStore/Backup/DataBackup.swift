import DepotFiles
import Foundation

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
    /// meanwhile) fails the backup with a line saying to run it again. Both folders are reached
    /// through ``ContainedFolder``: a link anywhere in `backup` (its `blobs/`, a shard, a blob
    /// file, the catalog's name) is refused with one line, never followed nor replaced, since
    /// Depot never makes one there; nothing outside the two folders is read or written.
    public static func backup(data: URL, to backup: URL) async throws -> Outcome {
        let source = try ContainedFolder(root: data.path, creating: false)
        let target = try ContainedFolder(root: backup.path)
        try target.makeFolder(blobFolder)
        // The catalog's name is checked too: a link there is refused, not replaced.
        _ = try target.status(of: "catalog.sqlite")
        // The online copy goes to the data folder's own tmp/ (SQLite writes by path: never in
        // the backup folder, which others may write), then into the backup by descriptor.
        let scratch = "tmp/backup-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        try source.makeFolder("tmp")
        defer { try? source.remove(scratch) }
        let referenced = try Maintenance.copy(data.appendingPathComponent("catalog.sqlite").path, into: "\(source.root)/\(scratch)")
        try target.replace("catalog.sqlite", durable: true, copying: scratch, from: source)

        var outcome = Outcome()
        let present = try blobNames(in: source)
        let held = try blobNames(in: target)
        for name in present.subtracting(held) { try link(name, from: source, to: target, outcome: &outcome) }
        for sha256 in referenced.subtracting(present) {
            guard try source.contains(path(of: sha256)) else {
                throw StoreError(.io, "The blob \(sha256) the catalog names left the data folder during the backup: run the backup again")
            }
            try link(sha256, from: source, to: target, outcome: &outcome)
        }
        for name in held.subtracting(present).subtracting(referenced) {
            try target.remove(path(of: name))
            outcome.removed += 1
        }
        outcome.blobs = try blobNames(in: target).count
        try target.synchronizeFileSystem()
        return outcome
    }

    /// The names of the files in the `blobs/xx/` folders of `folder`; a link among them, or
    /// in a shard's place, is refused.
    static func blobNames(in folder: ContainedFolder) throws -> Set<String> {
        var names: Set<String> = []
        for shard in try folder.namesRefusingLinks(in: blobFolder) where shard.count == 2 {
            for name in try folder.namesRefusingLinks(in: "\(blobFolder)/\(shard)") where name.hasPrefix(shard) {
                names.insert(name)
            }
        }
        return names
    }

    /// The data folder's store of blob files, as ``BlobStore`` lays it out (not the tree's
    /// `blobs/`, whose layout ``DepotManifest/TreeObject`` owns).
    static let blobFolder = "blobs"

    /// Where the blob file `name` (a SHA-256, with any suffix) lives in a data folder.
    static func path(of name: String) -> String {
        "\(blobFolder)/\(name.prefix(2))/\(name)"
    }

    /// Hard-links the blob file `name` of the data folder `source` into `folder`'s `blobs/`,
    /// or copies it (a backup's, or a restore's), counting which in `outcome`.
    static func link(_ name: String, from source: ContainedFolder, to folder: ContainedFolder, outcome: inout Outcome) throws {
        if try folder.place(path(of: name), from: source, at: path(of: name)) {
            outcome.linked += 1
        } else {
            outcome.copied += 1
        }
    }
}
