import CLinuxCalls
import DepotFiles
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls the store makes directly, because `_NIOFileSystem` offers no plain
/// `rename(2)` (its `moveItem` refuses to replace) or `realpath(3)`.
@inline(__always)
func SystemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
    rename(from, to)
}

@inline(__always)
func SystemErrno() -> Int32 { errno }

/// `rename(2)` of `source` to `destination`, atomic within one file system, replacing what is
/// there; throws a ``StoreError`` naming both.
func SystemRename(_ source: FilePath, to destination: FilePath) throws {
    let result = source.withPlatformString { from in destination.withPlatformString { SystemRename(from, $0) } }
    guard result == 0 else { throw SystemCallError("Cannot rename \(source) to \(destination)") }
}

/// Whether `path` names something (`access(2)` with `F_OK`): synchronous, for work that
/// already runs on a thread pool.
@inline(__always)
func SystemFileExists(_ path: UnsafePointer<CChar>) -> Bool {
    access(path, F_OK) == 0
}

/// `mkdir(2)` with Depot's folder mode (``DepotFiles/FileModes/folder``); true when made, or
/// already there.
func SystemMakeDirectory(_ path: UnsafePointer<CChar>) -> Bool {
    mkdir(path, FileModes.folder) == 0 || errno == EEXIST
}

/// `fsync(2)` of the file or folder at `path`.
func SystemSynchronize(_ path: FilePath) throws {
    let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { throw StoreError(.io, "Cannot open \(path): errno \(errno)") }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw SystemCallError("Cannot sync \(path)") }
}

/// The error of a system call that just failed, by `errno`: ``StoreError/Code/noSpace`` when
/// the disk or the quota is full, `.io` otherwise.
func SystemCallError(_ message: String) -> StoreError {
    errno == ENOSPC || errno == EDQUOT ? StoreError(.noSpace, "\(message): no space left") : StoreError(.io, "\(message): errno \(errno)")
}

#if os(Linux)
/// `syncfs(2)` of the file system holding `path`: every write to it made durable in one journal
/// commit.
func SystemSynchronizeFileSystem(of path: FilePath) throws {
    let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else { throw StoreError(.io, "Cannot open \(path): errno \(errno)") }
    defer { close(descriptor) }
    guard syncfs(descriptor) == 0 else { throw StoreError(.io, "Cannot sync the file system of \(path): errno \(errno)") }
}
#endif

/// `unlink(2)`: synchronous, so that it can run under a lock.
@inline(__always)
func SystemUnlink(_ path: UnsafePointer<CChar>) -> Int32 {
    unlink(path)
}

/// Asks the kernel to start writing `count` bytes at `offset` of a file to disk, without waiting
/// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`; Linux only, nothing elsewhere). Durability
/// still comes from `fsync(2)`; this lets the disk work while the rest of the file is made, so
/// that the final `fsync(2)` has little left to wait for.
func SystemStartWriteback(_ descriptor: Int32, offset: Int64, count: Int64) {
    #if os(Linux)
    _ = sync_file_range(descriptor, offset, count, UInt32(DEPOT_SYNC_FILE_RANGE_WRITE))
    #endif
}

/// The canonical absolute path of `path`, with every symbolic link resolved, or `nil` when it
/// does not exist.
func SystemRealPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

@inline(__always)
func SystemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

@inline(__always)
func SystemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// A file read with blocking `read(2)` calls, for work that already runs on a thread pool.
struct BlockingFileReader: ~Copyable {
    private let descriptor: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(.io, "Cannot open \(path): errno \(errno)") }
    }

    deinit { close(descriptor) }

    /// Fills `buffer` as far as the file allows; returns how many bytes were read (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = SystemRead(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StoreError(.io, "Cannot read \(path): errno \(errno)") }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// The whole file; throws ``StoreError/Code/tooLarge`` before reading anything when it is
    /// larger than `maximumSize`.
    static func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        let reader = try BlockingFileReader(path: path)
        let size = Int(lseek(reader.descriptor, 0, SEEK_END))
        guard size >= 0, lseek(reader.descriptor, 0, SEEK_SET) == 0 else {
            throw StoreError(.io, "Cannot find the size of \(path): errno \(errno)")
        }
        guard size <= maximumSize else { throw StoreError(.tooLarge, "\(path) has \(size) bytes, more than \(maximumSize)") }
        return try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = try reader.read(into: UnsafeMutableRawBufferPointer(buffer))
        }
    }
}

/// A file's device and inode (0 and 0 where the platform gives no `stat`).
func SystemFileIdentity(_ info: FileInfo) -> (device: UInt64, inode: UInt64) {
    #if os(Linux)
    guard var status = info.platformSpecificStatus else { return (0, 0) }
    return withUnsafePointer(to: &status) { (depot_stat_device($0), depot_stat_inode($0)) }
    #else
    return (0, 0)
    #endif
}

/// A new file written with blocking `write(2)` calls, for work that already runs on a thread
/// pool. Durable only once ``synchronize()`` returns: what the store writes this way is
/// ingested into it, which makes it durable; an export folder's objects are synchronized here.
/// Made with Depot's file mode (``DepotFiles/FileModes/file``), as every file of the store: an
/// export links it, and the web server reads it there.
struct BlockingFileWriter: ~Copyable {
    private let descriptor: Int32
    let path: String

    init(creating path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FileModes.file)
        guard descriptor >= 0 else { throw SystemCallError("Cannot create \(path)") }
    }

    /// The file open as `descriptor` (which it then owns), named `path` in messages.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let count = SystemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw SystemCallError("Cannot write \(path)") }
            written += count
        }
    }

    /// `fsync(2)`: what was written is on the disk.
    func synchronize() throws {
        guard fsync(descriptor) == 0 else { throw SystemCallError("Cannot sync \(path)") }
    }
}
