import DepotFiles
import Foundation

/// A file of the sync folder (a staged file, a partial file, a release's file), named by its
/// path below the folder and touched only through the folder's descriptor
/// (``DepotFiles/ContainedFolder``): a link planted in its place, or on the way to it, is
/// refused with one line, never read, written or removed through. Failures are ``SyncError``s of
/// code `io`.
struct FolderFile: Sendable {
    let folder: ContainedFolder
    /// The path below the folder.
    let path: String

    /// The file `url` names in a folder a caller gave by its path (`depot mirror`'s partial
    /// folder), that folder opened by its path (a link there is the caller's), made when
    /// `creating`.
    static func at(_ url: URL, creating: Bool) throws -> FolderFile {
        let folder = try folderCall { try ContainedFolder(root: url.deletingLastPathComponent().path, creating: creating) }
        return FolderFile(folder: folder, path: url.lastPathComponent)
    }

    /// The file's full path, for messages.
    var shown: String { folder.root + "/" + path }

    /// The file named `path` with `suffix` added (`.verifying`, `.etag`): beside it.
    func appending(_ suffix: String) -> FolderFile { FolderFile(folder: folder, path: path + suffix) }

    /// Its size; `nil` when there is no file (a link in its place is refused: `nil` too).
    var size: Int64? { (try? folder.status(of: path)).flatMap { $0.map { Int64($0.st_size) } } }

    /// Whether a regular file is there (a link is not).
    var exists: Bool { size != nil }

    /// The file open for reading.
    func reading() throws -> FileHandle {
        FileHandle(fileDescriptor: try folderCall { try folder.open(path, mode: .read) }, closeOnDealloc: true)
    }

    /// The file open for reading and writing, made when missing (with its folders), emptied
    /// when `truncating`.
    func writing(truncating: Bool) throws -> FileHandle {
        FileHandle(fileDescriptor: try folderCall { try folder.open(path, mode: truncating ? .truncate : .readWrite) }, closeOnDealloc: true)
    }

    /// Its bytes; `nil` when there is none.
    func read() throws -> Data? {
        try folderCall { try folder.read(path) }.map { Data($0) }
    }

    /// The file mapped into memory (``DepotFiles/ContainedFolder/map(_:)``); `nil` when there is none.
    func mapped() throws -> Data? {
        guard let file = try folderCall({ try folder.map(path) }) else { return nil }
        guard let start = file.bytes.baseAddress else { return Data() }
        // The mapping lives as long as the data: the deallocator holds it.
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: start), count: file.bytes.count, deallocator: .custom { _, _ in _ = file })
    }

    /// Writes `data` (the file created or emptied), without making it durable
    /// (``Durability``), with `modified` as its modification time when given.
    func write(_ data: Data, modified: Int64? = nil) throws {
        let descriptor = try folderCall { try folder.open(path, mode: .truncate) }
        defer { close(descriptor) }
        guard data.withUnsafeBytes({ writeAll(descriptor, $0) }) else { throw SyncError(.io, "cannot write \(shown): errno \(errno)") }
        if let modified {
            // Through the open descriptor: no second lookup of the path.
            let time = timespec(tv_sec: Int(modified), tv_nsec: 0)
            guard futimens(descriptor, [time, time]) == 0 else { throw SyncError(.io, "cannot set the time of \(shown): errno \(errno)") }
        }
    }

    /// Gives the file the modification time `seconds` since 1970.
    func setModified(_ seconds: Int64) throws {
        try folderCall { try folder.setModificationTime(of: path, seconds: seconds) }
    }

    /// Renames it to `destination` (in the same folder), replacing a file there, not durably
    /// (``Durability``).
    func rename(to destination: FolderFile) throws {
        guard try folderCall({ try folder.rename(path, to: destination.path) }) else { throw SyncError(.io, "cannot rename \(shown): it is missing") }
    }

    /// Removes it, if there; a link in its place is removed itself, never what it names.
    func remove() {
        try? folder.remove(path)
    }
}
