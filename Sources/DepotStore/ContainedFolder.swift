import _NIOFileSystem

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
/// link. So a link planted inside (by whoever else can write the folder) never leads out of it:
/// an entry that is not what Depot made there (a link, a file where a folder goes) is refused
/// with one line, and nothing outside is read, written or removed.
///
/// The root itself is opened by its path, as the operator gave it (a link there is theirs).
/// Synchronous POSIX calls, for work that already runs on a thread pool; paths are relative,
/// `/`-separated, without `.` or `..` (``DepotManifest/TreeObject`` paths and Depot's own dot
/// names).
final class ContainedFolder: Sendable {
    /// The folder's path, for messages.
    let root: FilePath
    private let descriptor: Int32

    /// Opens the folder at `root`, made (with its parents) when missing.
    init(root: FilePath) throws {
        self.root = root
        try Self.makeFolders(root.string)
        descriptor = root.string.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SystemCallError("Cannot open the folder \(root)") }
    }

    deinit { close(descriptor) }

    /// A folder on the way to a path is missing (and was not to be made).
    private struct Absent: Error {}

    /// Why `path` is refused: an entry of it is not what Depot makes.
    private func refused(_ path: String) -> StoreError {
        StoreError(.invalidInput, "\(root)/\(path) is not a folder or file Depot made (a link?): remove it")
    }

    /// Runs `body` with a descriptor of the folder holding `path`'s last name, and that name.
    /// With `creating`, missing folders on the way are made (each made durable in its parent).
    func withParent<Result>(of path: String, creating: Bool = false, _ body: (Int32, String) throws -> Result) throws -> Result {
        var components = path.split(separator: "/").map(String.init)
        guard let name = components.popLast(), !components.contains(where: { $0 == "." || $0 == ".." }), name != ".", name != ".." else {
            throw StoreError(.invalidInput, "\(path) is not a path below \(root)")
        }
        var folder = dup(descriptor)
        guard folder >= 0 else { throw SystemCallError("Cannot open the folder \(root)") }
        defer { close(folder) }
        var walked = ""
        for component in components {
            walked += walked.isEmpty ? component : "/" + component
            var next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                guard mkdirat(folder, component, 0o755) == 0 || errno == EEXIST else { throw SystemCallError("Cannot make \(root)/\(walked)") }
                guard fsync(folder) == 0 else { throw SystemCallError("Cannot sync the folder of \(root)/\(walked)") }
                next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                if errno == ENOENT { throw Absent() }
                if errno == ELOOP || errno == ENOTDIR { throw refused(walked) }
                throw SystemCallError("Cannot open \(root)/\(walked)")
            }
            close(folder)
            folder = next
        }
        return try body(folder, name)
    }

    /// What is at `path`, not following a link: `nil` when nothing is; a link or another kind
    /// of entry than `kind` (`S_IFREG`, `S_IFDIR`) is refused.
    func status(of path: String, kind: mode_t = S_IFREG) throws -> stat? {
        do {
            return try withParent(of: path) { folder, name in
                var status = stat()
                guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { return nil }
                    throw SystemCallError("Cannot look at \(root)/\(path)")
                }
                guard status.st_mode & S_IFMT == kind else { throw refused(path) }
                return status
            }
        } catch is Absent {
            return nil
        }
    }

    /// Whether a file is at `path` (a missing folder on the way: no).
    func contains(_ path: String) throws -> Bool {
        try status(of: path) != nil
    }

    /// The bytes of the file at `path`, or `nil` when there is none.
    func read(_ path: String) throws -> [UInt8]? {
        let file: Int32
        do {
            file = try withParent(of: path) { folder, name in openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        } catch is Absent {
            return nil
        }
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw refused(path) }
            throw SystemCallError("Cannot open \(root)/\(path)")
        }
        defer { close(file) }
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = SystemRead(file, buffer.baseAddress!, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw SystemCallError("Cannot read \(root)/\(path)") }
            if count == 0 { return bytes }
            bytes += UnsafeRawBufferPointer(rebasing: buffer[..<count])
        }
    }

    /// A new file at `path` (none may be there, a link neither), open for writing; the caller
    /// closes it.
    func create(_ path: String, mode: mode_t = 0o644) throws -> Int32 {
        let file = try withParent(of: path, creating: true) { folder, name in
            openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        guard file >= 0 else { throw errno == EEXIST || errno == ELOOP ? refused(path) : SystemCallError("Cannot create \(root)/\(path)") }
        return file
    }

    /// Renames the file at `source` to `destination` (both below the folder), replacing a file
    /// there; the folders of `destination` are made when missing.
    func rename(_ source: String, to destination: String) throws {
        try withParent(of: source) { from, fromName in
            try withParent(of: destination, creating: true) { to, toName in
                guard renameat(from, fromName, to, toName) == 0 else { throw SystemCallError("Cannot rename \(root)/\(source) to \(destination)") }
            }
        }
    }

    /// Makes `path` a hard link to the file at `source` (outside the folder, given by the
    /// caller, never a name read from it). Returns false when `link(2)` cannot (another file
    /// system); throws when something is at `path` already.
    func link(_ source: FilePath, at path: String) throws -> Bool {
        try withParent(of: path, creating: true) { folder, name in
            let linked = source.string.withCString { linkat(AT_FDCWD, $0, folder, name, 0) } == 0
            if !linked, errno == EEXIST { throw refused(path) }
            return linked
        }
    }

    /// Removes the file at `path`, if any: the entry itself, a link included, never what a link
    /// points to.
    func remove(_ path: String) throws {
        do {
            try withParent(of: path) { folder, name in _ = unlinkat(folder, name, 0) }
        } catch is Absent {}
    }

    /// The names in the folder `path`, dot names excepted; none when it is missing.
    func names(in path: String) throws -> [String] {
        guard let folder = try openFolder(path) else { return [] }
        guard let stream = fdopendir(folder) else {
            close(folder)
            throw SystemCallError("Cannot list \(root)/\(path)")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    /// `fsync(2)` of the folder `path` ("" for the root).
    func synchronize(folder path: String) throws {
        guard let folder = try openFolder(path) else { throw StoreError(.io, "Cannot open \(root)/\(path): it is missing") }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw SystemCallError("Cannot sync \(root)/\(path)") }
    }

    /// A descriptor of the folder `path` ("" for the root), which the caller closes; `nil` when
    /// it, or a folder on the way, is missing. A link or a file in its place is refused.
    private func openFolder(_ path: String) throws -> Int32? {
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
            throw SystemCallError("Cannot open \(root)/\(path)")
        }
        return folder
    }

    /// `mkdir -p` of the root, each new folder made durable in its parent.
    private static func makeFolders(_ path: String) throws {
        guard path.withCString({ access($0, F_OK) }) != 0 else { return }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty { try makeFolders(parent) }
        guard path.withCString({ mkdir($0, 0o755) }) == 0 || errno == EEXIST else { throw SystemCallError("Cannot make the folder \(path)") }
        if !parent.isEmpty { try SystemSynchronize(FilePath(parent)) }
    }
}
