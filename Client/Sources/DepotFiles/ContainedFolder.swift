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
                if synchronizesNewFolders { try Durability.synchronize(descriptor: folder, name: "the folder of \(root)/\(walked)") }
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
    func isLink(_ name: String, in folder: Int32) -> Bool {
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
    func lookUp(_ path: String) throws -> stat? {
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
                if synchronizesNewFolders { try Durability.synchronize(descriptor: folder, name: "the folder of \(root)/\(path)") }
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
        try Durability.synchronize(descriptor: descriptor, name: "the folder \(parent)")
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
