#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder's names: renaming, hard and symbolic links, removal, listing, and making a
/// folder's names durable.
extension ContainedFolder {
    /// Renames the file at `source` to `destination` (both below the folder), replacing a file
    /// there; the folders of `destination` are made when missing. Returns false, renaming
    /// nothing, when nothing is at `source`.
    @discardableResult
    public func rename(_ source: String, to destination: String) throws -> Bool {
        do {
            return try withParent(of: source) { from, fromName in
                try withParent(of: destination, creating: true) { to, toName in
                    guard renameat(from, fromName, to, toName) == 0 else {
                        let number = errno
                        let failure = FolderError.system("Cannot rename \(root)/\(source) to \(destination)")
                        var status = stat()
                        if number == ENOENT, fstatat(from, fromName, &status, AT_SYMLINK_NOFOLLOW) != 0 { return false }
                        if number == EISDIR || number == ENOTDIR { throw refused(destination) }
                        throw failure
                    }
                    return true
                }
            }
        } catch is Absent {
            return false
        }
    }

    /// Makes `path` a hard link to the file at `source` (outside the folder, given by the
    /// caller, never a name read from it). Returns false when `link(2)` cannot (another file
    /// system); throws when something is at `path` already.
    public func link(_ source: String, at path: String) throws -> Bool {
        try withParent(of: path, creating: true) { folder, name in
            let linked = linkat(AT_FDCWD, source, folder, name, 0) == 0
            if !linked, errno == EEXIST { throw refused(path) }
            return linked
        }
    }

    /// Makes `path` a symbolic link to `target` (relative to `path`'s folder), replacing
    /// whatever link or file is there atomically: the link is made under a temporary name, then
    /// renamed over `path`, so a reader finds the old link or the new, never none. Not durable:
    /// the caller synchronizes the folder.
    public func replaceSymbolicLink(_ path: String, with target: String) throws {
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = (parent.isEmpty ? "" : parent + "/") + ".\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
        try withParent(of: temporary, creating: true) { folder, name in
            guard symlinkat(target, folder, name) == 0 else { throw FolderError.system("Cannot make the link \(root)/\(temporary)") }
        }
        do {
            try rename(temporary, to: path)
        } catch {
            try? remove(temporary)
            throw error
        }
    }

    /// The target of the symbolic link at `path`, not followed; `nil` when nothing is there.
    /// Another kind of entry there is refused.
    public func symbolicLinkTarget(_ path: String) throws -> String? {
        do {
            return try withParent(of: path) { folder, name in
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlinkat(folder, name, &buffer, buffer.count - 1)
                guard count >= 0 else {
                    if errno == ENOENT { return nil }
                    if errno == EINVAL { throw FolderError(.refused, "\(root)/\(path) is not a link Depot made: remove it") }
                    throw FolderError.system("Cannot read the link \(root)/\(path)")
                }
                return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        } catch is Absent {
            return nil
        }
    }

    /// Removes the file at `path`, if any: the entry itself, a link included, never what a link
    /// points to.
    public func remove(_ path: String) throws {
        do {
            try withParent(of: path) { folder, name in _ = unlinkat(folder, name, 0) }
        } catch is Absent {}
    }

    /// Removes the folder at `path` when it is empty; returns whether it did.
    @discardableResult
    public func removeEmptyFolder(_ path: String) throws -> Bool {
        do {
            return try withParent(of: path) { folder, name in unlinkat(folder, name, AT_REMOVEDIR) == 0 }
        } catch is Absent {
            return false
        }
    }

    /// The names in the folder `path`, dot names excepted; none when it is missing.
    public func names(in path: String) throws -> [String] {
        guard let folder = try openFolder(path) else { return [] }
        defer { close(folder) }
        return try entries(of: folder, path: path).filter { !$0.hasPrefix(".") }
    }

    /// Removes everything in the folder `path` (not the folder), subfolders included, never
    /// following a link: a link inside is removed, not what it points to.
    public func removeContents(of path: String) throws {
        guard let folder = try openFolder(path) else { return }
        defer { close(folder) }
        try removeContents(of: folder, path: path)
    }

    private func removeContents(of folder: Int32, path: String) throws {
        for name in try entries(of: folder, path: path) where unlinkat(folder, name, 0) != 0 {
            guard errno == EISDIR || errno == EPERM else { continue }
            let inner = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard inner >= 0 else { continue }
            defer { close(inner) }
            try removeContents(of: inner, path: path + "/" + name)
            _ = unlinkat(folder, name, AT_REMOVEDIR)
        }
    }

    /// Every name in the open folder `folder` but `.` and `..`.
    func entries(of folder: Int32, path: String) throws -> [String] {
        let listed = dup(folder)
        guard listed >= 0, let stream = fdopendir(listed) else {
            if listed >= 0 { close(listed) }
            throw FolderError.system("Cannot list \(root)/\(path)")
        }
        defer { closedir(stream) }
        // A duplicate shares its position with `folder`: from the start, whatever read it before.
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// `fsync(2)` of the folder `path` ("" for the root).
    public func synchronize(folder path: String) throws {
        guard let folder = try openFolder(path) else { throw FolderError(.io, "Cannot open \(root)/\(path): it is missing") }
        defer { close(folder) }
        try Durability.synchronize(descriptor: folder, name: "\(root)/\(path)")
    }
}
