import Crypto
import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(CLinuxCalls)
import CLinuxCalls
#endif

/// The release folders of ``FolderLayout/releaseFolders``: each release a folder of its own,
/// `.depot/trees/{tree}/`, and `current`, a relative link in the sync folder, naming the one
/// held, as OSTree's deployments and Capistrano's `current` do. A tree is named by its release's
/// number and a random part (`12-9f3a1c2e0b4d5a6c`): a release the channel rolls back to gets a
/// new tree, never the old one an app may still hold open.
///
/// What a tree holds, the rule the tests hold it to: exactly the publisher's bytes of its
/// release when it is made, and afterwards only what the app itself writes to it.
/// - A file that a release changes comes from staging, verified.
/// - A file that does not change comes from the tree held: a hard link, read-only (its
///   permission bits, shared by every tree), so a release costs only what changed.
/// - A SQLite database (a file that starts with SQLite's 16-byte header) is a copy in every
///   tree, writable: what the app writes to release 12's catalog stays in release 12's tree,
///   beside its own `-wal` and `-shm`. The copy of an unchanged database is checked against its
///   SHA-256 as it is made.
/// - A file of the tree held whose size, modification time or (a database's) SHA-256 is no
///   longer what the release gave it (the app wrote to it) is not carried over: the plan
///   fetches it (``altered(_:in:)``), from the blocks the changed copy still has.
///
/// Each tree has a lock file beside it, `.depot/trees/{tree}.lock`, which a reader holds shared
/// (``OpenRelease``) and the sync making it exclusively until it is staged or applied; a tree
/// that is neither the current one nor staged is removed once its lock can be taken
/// exclusively (``collect(keeping:)``): never while a reader holds it.
struct ReleaseTrees {
    static let path = ".depot/trees"
    /// The link naming the tree held, in the sync folder.
    static let link = "current"
    /// SQLite's file header: "SQLite format 3" and a NUL.
    static let databaseHeader = Array("SQLite format 3\0".utf8)

    let folder: ContainedFolder

    /// A new tree's name for release `number`.
    static func newName(number: Int64) -> String {
        "\(number)-" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Whether `name` is a tree's name: a journal or a link that names anything else is refused.
    static func isName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let number = parts.first, !number.isEmpty, number.count <= 19, number.allSatisfy(\.isASCII),
            number.allSatisfy(\.isNumber)
        else { return false }
        return parts[1].count == 16 && parts[1].allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// Whether `name` is the name of a tree of release `number` (``newName(number:)``).
    static func isName(_ name: String, number: Int64) -> Bool {
        isName(name) && name.hasPrefix("\(number)-")
    }

    static func treePath(_ name: String) -> String { path + "/" + name }
    static func lockPath(_ name: String) -> String { path + "/" + name + ".lock" }

    /// The tree the link names; `nil` when there is no link (no release yet).
    ///
    /// - Throws: ``SyncError`` `.io` when `current` is not a link to a tree.
    func current() throws -> String? {
        guard let target = try folderCall({ try folder.symbolicLinkTarget(Self.link) }) else { return nil }
        let prefix = Self.path + "/"
        let name = String(target.dropFirst(prefix.count))
        guard target.hasPrefix(prefix), Self.isName(name) else {
            throw SyncError(.io, "\(folder.root)/\(Self.link) names \(target), not a release folder Depot made: remove it")
        }
        return name
    }

    /// Whether the tree `name` is there, whole: asked before a staged tree is applied. A tree
    /// whose linked files were written since they were linked (``LinkRecord/verify(_:in:)``) is
    /// not: it is removed, so that the download is dropped and the next sync makes another.
    func contains(_ name: String) throws -> Bool {
        guard try folderCall({ try folder.kind(of: Self.treePath(name)) == S_IFDIR }) else { return false }
        do {
            try LinkRecord.verify(name, in: folder)
            return true
        } catch {
            try? folder.removeContents(of: Self.treePath(name))
            _ = try? folder.removeEmptyFolder(Self.treePath(name))
            try? folder.remove(LinkRecord.path(of: name))
            return false
        }
    }

    /// Points the link at the tree `name`, atomically and durably.
    func point(at name: String) throws {
        try folderCall {
            try folder.replaceSymbolicLink(Self.link, with: Self.treePath(name))
            try folder.synchronize(folder: "")
        }
    }

    /// What the tree `held` gives the next release of the files it keeps (``altered(_:in:)``).
    struct Carried {
        /// The files not as the release made them: fetched instead.
        var altered: [ReleaseEntry] = []
        /// The bytes of the databases among the others, which are copied (the rest are linked).
        var copiedBytes: Int64 = 0
    }

    /// Which entries of `unchanged` (files a release keeps as they were) have a file in the tree
    /// `held` that is not as the release made it: missing, or of another size or modification
    /// time (the release's, to the second, with no fraction: a write leaves one). One `stat`
    /// each: the tree is made of them anyway. A database, which the app may write to (the only
    /// files of a tree not read-only), is also checked by its SHA-256: a write within the
    /// second on a file system of whole seconds leaves no trace in its status.
    func altered(_ unchanged: some Sequence<ReleaseEntry>, in held: String) -> Carried {
        var carried = Carried()
        for entry in unchanged {
            let path = Self.treePath(held) + "/" + entry.path
            guard let status = try? folder.status(of: path) else {
                carried.altered.append(entry)
                continue
            }
            let time = modificationTime(status)
            if Int64(status.st_size) != entry.size || entry.modifiedSeconds.map({ $0 != Int64(time.tv_sec) || time.tv_nsec != 0 }) ?? false {
                carried.altered.append(entry)
            } else if status.st_mode & 0o222 != 0 {
                if StagedContent.isIntact(FolderFile(folder: folder, path: path), for: entry) {
                    carried.copiedBytes += entry.size
                } else {
                    carried.altered.append(entry)
                }
            }
        }
        return carried
    }

    /// Makes the tree `name` of `entries` (every file of the release): a file of `fetched` from
    /// its staged content, any other from the tree `held`; a database copied, any other file
    /// linked, read-only. Every file is reached through ``ContainedFolder`` (by descriptor, no
    /// link followed): a link swapped into the held tree after the plan is refused, never
    /// followed out of the folder. The files linked are recorded (``LinkRecord``) so that the
    /// switch finds a write made to them through the tree held before it is applied. Returns
    /// the files made, to make durable.
    ///
    /// - Throws: ``SyncError`` `.corrupt` when an unchanged database's copy is not the release's
    ///   (the app wrote to it while it was copied): the next sync fetches it; `.io` when an entry
    ///   of the held tree is a link.
    func build(_ name: String, entries: [ReleaseEntry], fetched: Set<String>, held: String?, staging: StagingFolder) throws -> [String] {
        let tree = Self.treePath(name)
        try folderCall { try folder.makeFolder(tree) }
        var linked: [LinkRecord.Entry] = []
        let made = try entries.map { entry in
            let destination = tree + "/" + entry.path
            let fromStaging = fetched.contains(entry.path)
            guard fromStaging || held != nil else { throw SyncError(.io, "\(entry.path) is neither staged nor held") }
            let source = fromStaging ? staging.journaled(entry.sha256) : Self.treePath(held!) + "/" + entry.path
            if try isDatabase(at: source) {
                try copy(source, to: destination, entry: entry, verified: !fromStaging)
            } else {
                // Read-only, for every tree the file is linked into: an app that writes to it
                // changes it in them all, so none is written.
                do {
                    try folderCall { try folder.setPermissions(source, 0o444) }
                } catch {
                    if fromStaging { throw error }
                }
                if try folderCall({ try folder.link(source, from: folder, at: destination) }) {
                    linked.append(.init(path: entry.path, size: entry.size, sha256: entry.sha256))
                } else {
                    try copy(source, to: destination, entry: entry, verified: true)
                }
            }
            return destination
        }
        try LinkRecord.write(linked, of: name, in: folder)
        return made
    }

    /// Copies `source` to `destination` in the folder, with the entry's modification time; with
    /// `verified`, checks the copy's SHA-256 and size against the entry.
    private func copy(_ source: String, to destination: String, entry: ReleaseEntry, verified: Bool) throws {
        let input = try folderCall { try folder.open(source, mode: .read) }
        defer { close(input) }
        let output = try folderCall { try folder.create(destination) }
        defer { close(output) }
        var hasher = SHA256()
        var size: Int64 = 0
        try folderCall {
            try copyFile(from: input, named: "\(folder.root)/\(source)", to: output, named: "\(folder.root)/\(destination)") { chunk in
                guard verified else { return }
                hasher.update(bufferPointer: chunk)
                size += Int64(chunk.count)
            }
        }
        if verified, size != entry.size || Hex.string(hasher.finalize()) != entry.sha256 {
            throw SyncError(.corrupt, "\(entry.path) changed while it was copied to the new release: sync again")
        }
        if let modified = entry.modifiedSeconds {
            let times = [timespec(tv_sec: Int(modified), tv_nsec: 0), timespec(tv_sec: Int(modified), tv_nsec: 0)]
            guard futimens(output, times) == 0 else { throw SyncError(.io, "cannot set the time of \(folder.root)/\(destination)") }
        }
    }

    /// Whether the file at `path` in the folder (a link refused) starts with SQLite's header.
    func isDatabase(at path: String) throws -> Bool {
        let file = try folderCall { try folder.open(path, mode: .read) }
        defer { close(file) }
        var header = [UInt8](repeating: 0, count: Self.databaseHeader.count)
        let count = header.withUnsafeMutableBytes { read(file, $0.baseAddress!, $0.count) }
        return count == header.count && header == Self.databaseHeader
    }

    /// Removes every tree but those `keeping` names, and the lock files of trees gone, each once
    /// its lock can be taken exclusively: a tree a reader holds, or a sync is making, stays.
    /// `keeping` is asked again under each lock: a tree staged or applied meanwhile stays too. A
    /// failure leaves the tree for the next collection.
    func collect(keeping: () -> Set<String>) {
        guard let names = try? folder.names(in: Self.path) else { return }
        let trees = Set(names.map(LinkRecord.treeName)).filter(Self.isName)
        for name in trees.subtracting(keeping()) {
            guard let lock = try? FileLock.acquire(Self.lockPath(name), in: folder, exclusive: true, wait: false) else { continue }
            defer { lock.unlock() }
            guard !keeping().contains(name) else { continue }
            try? folder.removeContents(of: Self.treePath(name))
            _ = try? folder.removeEmptyFolder(Self.treePath(name))
            try? folder.remove(LinkRecord.path(of: name))
            try? folder.remove(Self.lockPath(name))
        }
    }
}

/// A file's modification time.
func modificationTime(_ status: stat) -> timespec {
    #if canImport(Darwin)
    status.st_mtimespec
    #else
    status.st_mtim
    #endif
}
