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

/// Whether `path` names something (`access(2)` with `F_OK`): synchronous, for work that
/// already runs on a thread pool.
@inline(__always)
func SystemFileExists(_ path: UnsafePointer<CChar>) -> Bool {
    access(path, F_OK) == 0
}

/// The error of a system call that just failed, by `errno`: ``StoreError/Code/noSpace`` when
/// the disk or the quota is full, `.io` otherwise.
func SystemCallError(_ message: String) -> StoreError {
    errno == ENOSPC || errno == EDQUOT ? StoreError(.noSpace, "\(message): no space left") : StoreError(.io, "\(message): errno \(errno)")
}

/// Runs `body`, telling a ``DepotFiles/FolderError`` as a ``StoreError``: `.noSpace` when the
/// disk or the quota is full, `.io` otherwise.
func storeCall<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as FolderError {
        throw StoreError(error.code == .noSpace ? .noSpace : .io, error.message, cause: error)
    }
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
/// pool, open by a descriptor a ``DepotFiles/ContainedFolder`` gave (the store's data folder:
/// ``BlobStore/createFile(_:)``). Durable only once ``synchronize()`` returns: what the store
/// writes this way is ingested into it, which makes it durable. Made with Depot's file mode
/// (``DepotFiles/FileModes/file``), as every file of the store: an export links it, and the
/// web server reads it there.
struct BlockingFileWriter: ~Copyable {
    private let descriptor: Int32
    let path: String

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

    /// `fsync(2)` (``DepotFiles/Durability``): what was written is on the disk.
    func synchronize() throws {
        try storeCall { try Durability.synchronize(descriptor: descriptor, name: path) }
    }
}
