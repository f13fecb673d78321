#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What moves files between two contained folders, and what builds and places a whole folder
/// (a backup, a restore, an import): every entry opened through a folder's descriptor, no link
/// followed, nothing removed that is not Depot's.
extension ContainedFolder {
    /// The folder `path` below this one ("" for the root), as a contained folder of its own,
    /// opened through this folder's descriptor: a link in its place is refused.
    public func subfolder(_ path: String) throws -> ContainedFolder {
        guard let folder = try openFolder(path) else { throw FolderError(.io, "\(root)/\(path) is missing") }
        return ContainedFolder(root: path.isEmpty ? root : "\(root)/\(path)", descriptor: folder)
    }

    /// The names in the folder `path` (dot names excepted), none when it is missing; a link in
    /// it, under any name, is refused: for a folder read whole (a backup), where a link is
    /// never Depot's.
    public func namesRefusingLinks(in path: String) throws -> [String] {
        guard let folder = try openFolder(path) else { return [] }
        defer { close(folder) }
        let names = try entries(of: folder, path: path)
        for name in names {
            var status = stat()
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw FolderError.system("Cannot look at \(root)/\(path)/\(name)") }
            if status.st_mode & S_IFMT == S_IFLNK { throw refused(path.isEmpty ? name : "\(path)/\(name)") }
        }
        return names.filter { !$0.hasPrefix(".") }
    }

    /// Whether the folder `path` ("" for the root) holds nothing, dot names included; a missing
    /// folder is empty.
    public func isEmptyFolder(_ path: String) throws -> Bool {
        guard let folder = try openFolder(path) else { return true }
        defer { close(folder) }
        return try entries(of: folder, path: path).isEmpty
    }

    /// Puts at `path` (nothing may be there) the regular file at `sourcePath` of `source`: a
    /// hard link when the two share a file system and the file is this user's with no write
    /// permission for others (its bytes then cannot change under the link), a copy otherwise.
    /// A link at `sourcePath` is refused, and so is one swapped in before the hard link is made
    /// (what was linked is looked at, and removed unless a regular file). Returns whether it
    /// linked. Not durable: the caller synchronizes.
    @discardableResult
    public func place(_ sourcePath: String, from source: ContainedFolder, at path: String) throws -> Bool {
        do {
            return try source.withParent(of: sourcePath) { from, fromName in
                var status = stat()
                guard fstatat(from, fromName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                    throw FolderError.system("Cannot look at \(source.root)/\(sourcePath)")
                }
                guard status.st_mode & S_IFMT == S_IFREG else { throw source.refused(sourcePath) }
                let shareable = status.st_uid == geteuid() && status.st_mode & 0o022 == 0
                return try withParent(of: path, creating: true) { to, toName in
                    if shareable {
                        if linkat(from, fromName, to, toName, 0) == 0 {
                            var linked = stat()
                            guard fstatat(to, toName, &linked, AT_SYMLINK_NOFOLLOW) == 0, linked.st_mode & S_IFMT == S_IFREG else {
                                _ = unlinkat(to, toName, 0)
                                throw source.refused(sourcePath)
                            }
                            return true
                        }
                        if errno == EEXIST { throw refused(path) }
                    }
                    try copy(from: (from, fromName, "\(source.root)/\(sourcePath)"), to: (to, toName, path), mode: status.st_mode & 0o644)
                    return false
                }
            }
        } catch is Absent {
            throw FolderError(.io, "\(source.root)/\(sourcePath) is missing")
        }
    }

    /// Copies the regular file `from` (a folder's descriptor, a name, a name for messages) to a
    /// new file `to` in this folder.
    private func copy(from: (folder: Int32, name: String, shown: String), to: (folder: Int32, name: String, path: String), mode: mode_t) throws {
        let input = openat(from.folder, from.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else {
            throw errno == ELOOP ? FolderError(.refused, "\(from.shown) is a link: remove it") : FolderError.system("Cannot open \(from.shown)")
        }
        defer { close(input) }
        var status = stat()
        guard fstat(input, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw FolderError(.refused, "\(from.shown) is not a file") }
        let output = openat(to.folder, to.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard output >= 0 else { throw errno == EEXIST ? refused(to.path) : FolderError.system("Cannot create \(root)/\(to.path)") }
        defer { close(output) }
        do {
            try copyFile(from: input, named: from.shown, to: output, named: "\(root)/\(to.path)")
        } catch {
            _ = unlinkat(to.folder, to.name, 0)
            throw error
        }
    }

    /// Replaces the file at `path` (``replace(_:durable:writing:)``) with a copy of the regular
    /// file at `sourcePath` of `source`, opened without following a link.
    public func replace(_ path: String, durable: Bool, copying sourcePath: String, from source: ContainedFolder) throws {
        let input = try source.open(sourcePath, mode: .read)
        defer { close(input) }
        try replace(path, durable: durable) { write in
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = chunk.withUnsafeMutableBytes { systemRead(input, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw FolderError.system("Cannot read \(source.root)/\(sourcePath)") }
                if count == 0 { return }
                try write(Array(chunk[..<count]))
            }
        }
    }

    /// Removes the folder or file at `path` and everything below it, never following a link: a
    /// link inside, or at `path`, is removed itself, not what it points to.
    public func removeTree(_ path: String) throws {
        guard let kind = try kind(of: path) else { return }
        guard kind == S_IFDIR else { return try remove(path) }
        try removeContents(of: path)
        guard try removeEmptyFolder(path) else { throw FolderError.system("Cannot remove \(root)/\(path)") }
    }

    /// Commits every write to the file system holding the folder, in one journal commit
    /// (`syncfs(2)`; `F_FULLFSYNC` of the folder on Apple platforms): a tree of many new files
    /// made durable at once.
    public func synchronizeFileSystem() throws {
        try Durability.synchronizeFileSystem(descriptor: descriptor, name: root)
    }

    /// Renames the folder `source` to `destination` (two names in this folder) without ever
    /// removing or replacing what is at `destination`, but an empty folder: that one is
    /// removed first (`rmdir(2)`, which fails on a folder not empty), then the rename itself
    /// refuses a name taken meanwhile (`renameat2(2)` with `RENAME_NOREPLACE`; `renameatx_np`
    /// with `RENAME_EXCL` on Apple platforms). A folder made or filled at `destination` in
    /// between (a server started on it) is kept whole, and the placement refused.
    public func placeFolder(_ source: String, as destination: String) throws {
        try withParent(of: destination) { to, toName in
            try withParent(of: source) { from, fromName in
                let taken = FolderError(
                    .refused,
                    "\(root)/\(destination) is not empty: something was put there meanwhile (a server started on it?); nothing was replaced"
                )
                if unlinkat(to, toName, AT_REMOVEDIR) != 0 {
                    switch errno {
                    case ENOENT: break
                    case ENOTEMPTY, EEXIST: throw taken
                    case ENOTDIR: throw refused(destination)
                    default: throw FolderError.system("Cannot remove the empty folder \(root)/\(destination)")
                    }
                }
                guard renameNoReplace(from, fromName, to, toName) == 0 else {
                    if errno == EEXIST || errno == ENOTEMPTY { throw taken }
                    throw FolderError.system("Cannot rename \(root)/\(source) to \(destination)")
                }
            }
        }
    }
}

/// A rename that fails with `EEXIST`, replacing nothing, when the new name is taken.
private func renameNoReplace(_ from: Int32, _ fromName: String, _ to: Int32, _ toName: String) -> Int32 {
    #if os(Linux)
    linuxCall(renameat2: from, fromName, to, toName, 1)  // RENAME_NOREPLACE
    #elseif canImport(Darwin)
    renameatx_np(from, fromName, to, toName, UInt32(RENAME_EXCL))
    #else
    // No such call: refuse rather than replace.
    errno = ENOSYS
    return -1
    #endif
}

#if os(Linux)
/// `renameat2(2)` (glibc 2.28), which glibc declares only with `_GNU_SOURCE`, looked up in the C
/// library (no C module: DepotFiles imports none, so that `struct stat` keeps one owner in every
/// module); `ENOSYS` without it.
private func linuxCall(renameat2 from: Int32, _ fromName: String, _ to: Int32, _ toName: String, _ flags: UInt32) -> Int32 {
    typealias Call = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    guard let symbol = dlsym(nil, "renameat2") else {
        errno = ENOSYS
        return -1
    }
    return unsafeBitCast(symbol, to: Call.self)(from, fromName, to, toName, flags)
}
#endif
