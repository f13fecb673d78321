#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening, reading and writing a file of the folder: a descriptor, its bytes, a new file, or a
/// durable replacement.
extension ContainedFolder {
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
    /// made when the mode may create the file. Anything but a regular file in its place (a link,
    /// a folder, a FIFO, a device) is refused, so a caller need not check again.
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

    /// The bytes of the file at `path`, or `nil` when there is none, or when it holds more than
    /// `bound` bytes (a file grown by another process is not read whole: the read stops there).
    public func read(_ path: String, bound: Int = .max) throws -> [UInt8]? {
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
            guard count <= bound - bytes.count else { return nil }
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
            if durable { try Durability.synchronize(descriptor: file, name: "\(root)/\(temporary)") }
            try rename(temporary, to: path)
        } catch {
            try? remove(temporary)
            throw error
        }
        if durable { try synchronize(folder: parent) }
    }
}
