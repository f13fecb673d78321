#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder Depot writes, touched only through a descriptor of it: a path below it is walked a
/// folder at a time with `openat(2)` and `O_DIRECTORY | O_NOFOLLOW`, and its last name is
/// created, opened, renamed, linked or removed with the `*at` calls, none of which follows a
/// link. So a link planted inside (by whoever else can write the folder: the web server's user
/// for an export, another process of an app's container for a sync folder) never leads out of
/// it: an entry that is not what Depot made there (a link, a file where a folder goes) is
/// refused with one line, and nothing outside is read, written or removed.
///
/// The one way Depot touches the folders it writes: the export folder (`depot export`, `depot
/// mirror`, the server's export) and the client's sync folder (its staging, partial files,
/// release cache, locks and the switch). The root itself is opened by its path, as the
/// operator or the app gave it (a link there is theirs). Synchronous POSIX calls, for work that
/// may block; paths are relative, `/`-separated, without `.` or `..` (tree object paths,
/// checked release paths and Depot's own dot names).
public final class ContainedFolder: Sendable {
    /// The folder's path, for messages.
    public let root: String
    let descriptor: Int32
    /// Whether a folder made below the root is made durable in its parent at once.
    private let synchronizesNewFolders: Bool

    /// Opens the folder at `root`, made (with its parents) when missing. With
    /// `synchronizesNewFolders` false, folders made below it are not fsynced into their
    /// parents: for a caller that makes its writes durable together later. With `creating`
    /// false, a missing folder is an error, not made: a folder only read (a backup restored, a
    /// tree imported).
    public init(root: String, synchronizesNewFolders: Bool = true, creating: Bool = true) throws {
        self.root = root
        self.synchronizesNewFolders = synchronizesNewFolders
        if creating { try Self.makeFolders(root) }
        descriptor = systemOpen(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError.system("Cannot open the folder \(root)") }
    }

    /// The folder open as `descriptor` (which it closes), below a contained folder.
    init(root: String, descriptor: Int32, synchronizesNewFolders: Bool = true) {
        self.root = root
        self.descriptor = descriptor
        self.synchronizesNewFolders = synchronizesNewFolders
    }

    deinit { close(descriptor) }

    /// Whether the root's path still names the folder opened: not removed, nor replaced, since.
    public var isAtRoot: Bool {
        var opened = stat()
        var named = stat()
        return fstat(descriptor, &opened) == 0 && stat(root, &named) == 0 && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// A folder on the way to a path is missing (and was not to be made).
    struct Absent: Error {}

    /// Why `path` is refused: an entry of it is not what Depot makes.
    func refused(_ path: String) -> FolderError {
        FolderError(.refused, "\(root)/\(path) is not a folder or file Depot made (a link?): remove it")
    }

    /// Runs `body` with a descriptor of the folder holding `path`'s last name, and that name.
    /// With `creating`, missing folders on the way are made (each made durable in its parent).
    func withParent<Result>(of path: String, creating: Bool = false, _ body: (Int32, String) throws -> Result) throws -> Result {
        var components = path.split(separator: "/").map(String.init)
        guard let name = components.popLast(), !components.contains(where: { $0 == "." || $0 == ".." }), name != ".", name != ".." else {
            throw FolderError(.refused, "\(path) is not a path below \(root)")
        }
        var folder = dup(descriptor)
        guard folder >= 0 else { throw FolderError.system("Cannot open the folder \(root)") }
        defer { close(folder) }
        var walked = ""
        for component in components {
            walked += walked.isEmpty ? component : "/" + component
            var next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                guard mkdirat(folder, component, FileModes.folder) == 0 || errno == EEXIST else {
                    throw FolderError.system("Cannot make \(root)/\(walked)")
                }
                guard !synchronizesNewFolders || fsync(folder) == 0 else { throw FolderError.system("Cannot sync the folder of \(root)/\(walked)") }
                next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                let number = errno
                if number == ENOENT { throw Absent() }
                // A file on the way: nothing is at `path` (a link there is refused).
                if number == ENOTDIR, !creating, !isLink(component, in: folder) { throw Absent() }
                if number == ELOOP || number == ENOTDIR { throw refused(walked) }
                throw FolderError.system("Cannot open \(root)/\(walked)")
            }
            close(folder)
            folder = next
        }
        return try body(folder, name)
    }

    /// Whether `name` in the open folder `folder` is a link.
    private func isLink(_ name: String, in folder: Int32) -> Bool {
        var status = stat()
        return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// The kind of entry at `path` (`S_IFREG`, `S_IFDIR`, `S_IFLNK`…), not following a link;
    /// `nil` when nothing is. A link on the way to it is refused.
    public func kind(of path: String) throws -> mode_t? {
        try lookUp(path).map { $0.st_mode & S_IFMT }
    }

    /// What is at `path`, not following a link: `nil` when nothing is; a link or another kind
    /// of entry than `kind` (`S_IFREG`, `S_IFDIR`) is refused.
    public func status(of path: String, kind: mode_t = S_IFREG) throws -> stat? {
        guard let status = try lookUp(path) else { return nil }
        guard status.st_mode & S_IFMT == kind else { throw refused(path) }
        return status
    }

    /// `fstatat(2)` of `path`, not following a link; `nil` when nothing is there.
    private func lookUp(_ path: String) throws -> stat? {
        do {
            return try withParent(of: path) { folder, name in
                var status = stat()
                guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { return nil }
                    throw FolderError.system("Cannot look at \(root)/\(path)")
                }
                return status
            }
        } catch is Absent {
            return nil
        }
    }

    /// Makes the folder `path` and those on the way to it, when missing (each made durable in
    /// its parent); an entry on the way, or at `path`, that is not a folder is refused.
    public func makeFolder(_ path: String) throws {
        try withParent(of: path, creating: true) { folder, name in
            if mkdirat(folder, name, FileModes.folder) == 0 {
                guard !synchronizesNewFolders || fsync(folder) == 0 else { throw FolderError.system("Cannot sync the folder of \(root)/\(path)") }
            } else if errno != EEXIST {
                throw FolderError.system("Cannot make \(root)/\(path)")
            }
            var status = stat()
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw FolderError.system("Cannot look at \(root)/\(path)") }
            guard status.st_mode & S_IFMT == S_IFDIR else { throw refused(path) }
        }
    }

    /// Whether a file is at `path` (a missing folder on the way: no).
    public func contains(_ path: String) throws -> Bool {
        try status(of: path) != nil
    }

    /// How ``open(_:mode:)`` opens a file.
    public enum OpenMode: Sendable {
        /// For reading; the file must be there.
        case read
        /// For reading and writing, made when missing, kept as it is otherwise (a partial
        /// file resumed, a lock file).
        case readWrite
        /// For writing, made when missing, emptied otherwise.
        case truncate
    }

    /// A descriptor of the file at `path`, which the caller closes; the folders on the way are
    /// made when the mode may create the file. A link in its place is refused.
    public func open(_ path: String, mode: OpenMode, permissions: mode_t = FileModes.file) throws -> Int32 {
        let flags: Int32
        switch mode {
        case .read: flags = O_RDONLY
        case .readWrite: flags = O_RDWR | O_CREAT
        case .truncate: flags = O_WRONLY | O_CREAT | O_TRUNC
        }
        let file = try withParent(of: path, creating: mode != .read) { folder, name in
            openat(folder, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, permissions)
        }
        guard file >= 0 else { throw errno == ELOOP || errno == EISDIR ? refused(path) : FolderError.system("Cannot open \(root)/\(path)") }
        return try regularFile(file, path)
    }

    /// `file`, opened with `O_NONBLOCK` (so that a FIFO or device planted in a file's place
    /// cannot hold the open), when it is a regular file, back to blocking; closed and refused
    /// otherwise.
    private func regularFile(_ file: Int32, _ path: String) throws -> Int32 {
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, fcntl(file, F_SETFL, fcntl(file, F_GETFL) & ~O_NONBLOCK) == 0 else {
            close(file)
            throw refused(path)
        }
        return file
    }

    /// The bytes of the file at `path`, or `nil` when there is none.
    public func read(_ path: String) throws -> [UInt8]? {
        let file: Int32
        do {
            file = try withParent(of: path) { folder, name in openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
        } catch is Absent {
            return nil
        }
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw refused(path) }
            throw FolderError.system("Cannot open \(root)/\(path)")
        }
        _ = try regularFile(file, path)
        defer { close(file) }
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = systemRead(file, buffer.baseAddress!, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw FolderError.system("Cannot read \(root)/\(path)") }
            if count == 0 { return bytes }
            bytes += UnsafeRawBufferPointer(rebasing: buffer[..<count])
        }
    }

    /// A new file at `path` (none may be there, a link neither), open for writing; the caller
    /// closes it.
    public func create(_ path: String, mode: mode_t = FileModes.file) throws -> Int32 {
        let file = try withParent(of: path, creating: true) { folder, name in
            openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        guard file >= 0 else { throw errno == EEXIST || errno == ELOOP ? refused(path) : FolderError.system("Cannot create \(root)/\(path)") }
        return file
    }

    /// Replaces the file at `path` with `bytes` atomically: written beside it under a temporary
    /// name, then renamed over it (a link in its place is replaced, not followed). With
    /// `durable`, the file is fsynced before the rename and its folder after, so that a crash
    /// too leaves the old bytes or the new; otherwise a crash may leave either, or a damaged
    /// file, for a caller that checks what it reads back.
    public func replace(_ path: String, with bytes: [UInt8], durable: Bool) throws {
        try replace(path, durable: durable) { write in try write(bytes) }
    }

    /// ``replace(_:with:durable:)`` with the bytes `produce` passes to its `write`, one part at
    /// a time: a file of many megabytes is never whole in memory.
    public func replace(_ path: String, durable: Bool, writing produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = (parent.isEmpty ? "" : parent + "/") + ".\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let file = try create(temporary)
        do {
            defer { close(file) }
            try produce { bytes in
                guard bytes.withUnsafeBytes({ writeAll(file, $0) }) else { throw FolderError.system("Cannot write \(root)/\(temporary)") }
            }
            if durable, fsync(file) != 0 { throw FolderError.system("Cannot sync \(root)/\(temporary)") }
            try rename(temporary, to: path)
        } catch {
            try? remove(temporary)
            throw error
        }
        if durable { try synchronize(folder: parent) }
    }

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
        guard fsync(folder) == 0 else { throw FolderError.system("Cannot sync \(root)/\(path)") }
    }

    /// A descriptor of the folder `path` ("" for the root), which the caller closes; `nil` when
    /// it, or a folder on the way, is missing. A link or a file in its place is refused.
    func openFolder(_ path: String) throws -> Int32? {
        let folder: Int32
        do {
            folder =
                try path.isEmpty
                ? dup(descriptor) : withParent(of: path) { parent, name in openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        } catch is Absent {
            return nil
        }
        guard folder >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP || errno == ENOTDIR { throw refused(path) }
            throw FolderError.system("Cannot open \(root)/\(path)")
        }
        return folder
    }

    /// `mkdir -p` of the root, each new folder made durable in its parent.
    private static func makeFolders(_ path: String) throws {
        guard access(path, F_OK) != 0 else { return }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty { try makeFolders(parent) }
        guard mkdir(path, FileModes.folder) == 0 || errno == EEXIST else { throw FolderError.system("Cannot make the folder \(path)") }
        guard !parent.isEmpty else { return }
        let descriptor = systemOpen(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FolderError.system("Cannot open the folder \(parent)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FolderError.system("Cannot sync the folder \(parent)") }
    }
}

/// `open(2)` of a folder by its path, under a name the folder's own methods do not shadow.
@inline(__always)
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags)
}

/// `read(2)`, under a name the folder's own methods do not shadow.
@inline(__always)
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
