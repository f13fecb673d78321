import Crypto
import DepotFiles
import DepotHTTP
import Foundation

/// What a new release tree shares with the tree held, checked when it is applied.
///
/// A file a release does not change is a hard link to the held tree's: one inode, read-only.
/// A process that can still write to it (root, or one that made it writable) writes to the
/// release staged too. The choice, rather than a copy of every file: link, record each file
/// linked with its inode and status-change time (`ctime`, which every write moves and no call
/// sets back) in `.depot/trees/{tree}.links`, and check them before the tree is pointed at.
/// A file whose `ctime` moved (a write, or only another tree linked or collected) is hashed
/// again, size and SHA-256 against the release; one that is no longer the release's removes
/// the staged tree before any switch (``ReleaseTrees/contains(_:)``): the apply says to
/// download again, and the next plan fetches the file, the held copy being altered.
struct LinkRecord: Codable {
    /// A file linked into a tree.
    struct Entry: Codable {
        var path: String
        var size: Int64
        var sha256: String
        var inode: UInt64 = 0
        var changedSeconds: Int64 = 0
        var changedNanoseconds: Int64 = 0
    }

    var entries: [Entry]

    /// The record's path, beside the tree.
    static func path(of tree: String) -> String { ReleaseTrees.path + "/" + tree + ".links" }

    /// The tree a name of `.depot/trees` belongs to: its own, a lock's, a record's.
    static func treeName(_ name: String) -> String {
        for suffix in [".lock", ".links"] where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
        return name
    }

    /// Records `linked`, the files linked into `tree`, each as it stands now; durably.
    static func write(_ linked: [Entry], of tree: String, in folder: ContainedFolder) throws {
        var entries: [Entry] = []
        for var entry in linked {
            guard let status = try folderCall({ try folder.status(of: ReleaseTrees.treePath(tree) + "/" + entry.path) }) else {
                throw SyncError(.io, "\(entry.path) is missing from the new release folder")
            }
            (entry.inode, entry.changedSeconds, entry.changedNanoseconds) = Self.identity(status)
            entries.append(entry)
        }
        let bytes = try JSONEncoder().encode(LinkRecord(entries: entries))
        try folderCall { try folder.replace(path(of: tree), with: Array(bytes), durable: true) }
    }

    /// Checks the files linked into `tree` (none recorded: nothing to check): each there, and
    /// either unchanged since it was linked or still the release's bytes.
    ///
    /// - Throws: ``SyncError`` `.corrupt` naming the first file that is not.
    static func verify(_ tree: String, in folder: ContainedFolder) throws {
        guard let bytes = try folderCall({ try folder.read(path(of: tree)) }) else { return }
        guard let record = try? JSONDecoder().decode(LinkRecord.self, from: Data(bytes)) else {
            throw SyncError(.corrupt, "\(folder.root)/\(path(of: tree)) is damaged: sync again")
        }
        for entry in record.entries {
            let path = ReleaseTrees.treePath(tree) + "/" + entry.path
            let status = try? folder.status(of: path)
            if let status, identity(status) == (entry.inode, entry.changedSeconds, entry.changedNanoseconds) { continue }
            guard status != nil, try isRelease(path, of: entry, in: folder) else {
                throw SyncError(.corrupt, "\(entry.path) was written to since it was staged (it is shared with the release held): sync again")
            }
        }
    }

    /// Whether the file at `path` has the entry's size and SHA-256.
    private static func isRelease(_ path: String, of entry: Entry, in folder: ContainedFolder) throws -> Bool {
        let file = try folderCall { try folder.open(path, mode: .read) }
        defer { close(file) }
        var hasher = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(file, buffer.baseAddress!, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            size += Int64(count)
        }
        return size == entry.size && Hex.string(hasher.finalize()) == entry.sha256
    }

    /// A file's inode and status-change time.
    private static func identity(_ status: stat) -> (UInt64, Int64, Int64) {
        #if canImport(Darwin)
        let changed = status.st_ctimespec
        #else
        let changed = status.st_ctim
        #endif
        return (UInt64(status.st_ino), Int64(changed.tv_sec), Int64(changed.tv_nsec))
    }
}
