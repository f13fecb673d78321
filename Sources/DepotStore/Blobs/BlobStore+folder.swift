import DepotFiles
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every change the store makes to its files (a temporary file made, a blob renamed into
/// place, a variant or a leftover removed, a folder made or synchronized) goes through the data
/// folder's ``DepotFiles/ContainedFolder``: descriptor-relative, no link followed, so a link
/// planted in `blobs/` or `tmp/` never makes the store write, rename or remove outside it.
/// Paths are the store's own absolute ones (``path(forSHA256:)``, ``temporaryPath(extension:)``),
/// which must lie below the data folder; reads of blobs by their content address stay on NIO's
/// file system, on the path that serves them.
extension BlobStore {
    /// The data folder, open; a store opened for reading only (``reading(dataDirectory:fileSystem:)``)
    /// over a folder that is missing has none, and refuses every change.
    func dataFolder() throws -> ContainedFolder {
        guard let folder else { throw StoreError(.io, "The data directory \(dataDirectory) cannot be opened to be written") }
        return folder
    }

    /// `path`'s name below the data folder.
    func name(of path: FilePath) throws -> String {
        guard path.starts(with: dataDirectory), path != dataDirectory else {
            throw StoreError(.invalidInput, "\(path) is not below the data directory \(dataDirectory)")
        }
        return path.components.dropFirst(dataDirectory.components.count).map(\.string).joined(separator: "/")
    }

    /// Runs `body` with the data folder and `path`'s name in it; a ``DepotFiles/FolderError`` is
    /// thrown as a ``StoreError`` (``StoreError/Code/noSpace`` when the disk is full).
    func inFolder<Result>(_ path: FilePath, _ body: (ContainedFolder, String) throws -> Result) throws -> Result {
        let folder = try dataFolder()
        let name = try name(of: path)
        return try storeCall { try body(folder, name) }
    }

    /// A new file at `path` (emptied when there is one), with Depot's file mode, open for writing:
    /// a descriptor the caller closes.
    func createFile(_ path: FilePath) throws -> Int32 {
        try inFolder(path) { folder, name in try folder.open(name, mode: .truncate, permissions: FileModes.file) }
    }

    /// Renames the file at `source` to `destination`, replacing a file there (atomic, in one file system).
    func rename(_ source: FilePath, to destination: FilePath) throws {
        try inFolder(source) { folder, from in
            guard try folder.rename(from, to: try name(of: destination)) else {
                throw StoreError(.io, "Cannot rename \(source) to \(destination): it is missing")
            }
        }
    }

    /// Removes the file at `path`, if any (the entry itself, never what a link there names).
    /// Synchronous and silent: every way out of a writer calls it, a cancelled task included.
    func remove(_ path: FilePath) {
        _ = try? inFolder(path) { folder, name in try folder.remove(name) }
    }

    /// Removes the temporary file at `path` (one of ``temporaryPath(extension:)``), if any:
    /// synchronous, so that a task that is cancelled (a shutdown) still removes it.
    public func removeTemporary(_ path: FilePath) {
        guard path.starts(with: temporaryDirectory) else { return }
        remove(path)
    }

    /// A new file at `path`, one of ``temporaryPath(extension:)`` (none may be there, a link
    /// neither), open for writing: a descriptor the caller closes, then the file it removes
    /// (``removeTemporary(_:)``).
    public func createTemporary(_ path: FilePath) throws -> Int32 {
        guard path.starts(with: temporaryDirectory) else { throw StoreError(.invalidInput, "\(path) is not in \(temporaryDirectory)") }
        return try inFolder(path) { folder, name in try folder.create(name) }
    }

    /// Makes the folder at `path` and those on the way, when missing, each durable in its parent.
    func makeFolder(_ path: FilePath) throws {
        try inFolder(path) { folder, name in try folder.makeFolder(name) }
    }

    /// Makes every write to the files and folders at `paths` (in the store), and to the folders
    /// holding them, durable at once (``DepotFiles/Durability/synchronize(_:in:)``: one
    /// `syncfs(2)` on Linux).
    func synchronize(_ paths: [FilePath]) throws {
        try inFolder(directory) { folder, _ in try Durability.synchronize(try paths.map(name(of:)), in: folder) }
    }
}
