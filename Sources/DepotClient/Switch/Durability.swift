import DepotFiles
import Foundation

#if canImport(CLinuxCalls)
import CLinuxCalls
#endif

/// Making many writes durable at once. A sync stages hundreds or thousands of files; an fsync of
/// each, and of each folder after each rename, would cost more than downloading them. Instead
/// the writes are made durable together at the two points where it matters: before the switch's
/// journal is written, and before the new state is saved.
enum Durability {
    /// Makes every write made so far to `files`, and to the folders holding them, durable. On
    /// Linux one `syncfs(2)` of the file system holding `folder` does it, in one journal commit;
    /// elsewhere each file and each distinct folder is fsynced.
    static func synchronize(_ files: @autoclosure () throws -> [URL], in folder: URL) throws {
        #if canImport(CLinuxCalls)
        let descriptor = Foundation.open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { throw SyncError(.io, "cannot open \(folder.path): errno \(errno)") }
        defer { close(descriptor) }
        guard syncfs(descriptor) == 0 else { throw SyncError(.io, "cannot sync \(folder.path): errno \(errno)") }
        #else
        let files = try files()
        for url in files + Set(files.map { $0.deletingLastPathComponent() }) {
            let descriptor = Foundation.open(url.path, O_RDONLY)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw SyncError(.io, "cannot sync \(url.path): errno \(errno)") }
        }
        #endif
    }

    /// Makes the entries of `folder` (files created, renamed or removed in it) durable: one
    /// `fsync(2)` of the folder.
    static func synchronizeFolder(_ folder: URL) throws {
        let descriptor = Foundation.open(folder.path, O_RDONLY)
        guard descriptor >= 0 else { throw SyncError(.io, "cannot open \(folder.path): errno \(errno)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw SyncError(.io, "cannot sync \(folder.path): errno \(errno)") }
    }

    /// Writes `data` to `url` (created or truncated), without making it durable: see
    /// ``synchronize(_:in:)``. Foundation's `Data.write` and `FileManager.createFile` fsync every
    /// file, which cost a cold sync of small files an eighth of its time.
    ///
    /// - Parameters:
    ///   - modified: Seconds since 1970 to give the file as its modification (and access) time,
    ///     through the open descriptor: no second lookup of the path.
    static func write(_ data: Data, to url: URL, modified: Int64? = nil) throws {
        let descriptor = Foundation.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw openFailure(url) }
        defer { close(descriptor) }
        guard data.withUnsafeBytes({ writeAll(descriptor, $0) }) else { throw SyncError(.io, "cannot write \(url.path): errno \(errno)") }
        if let modified {
            let time = timespec(tv_sec: Int(modified), tv_nsec: 0)
            var times = [time, time]
            guard futimens(descriptor, &times) == 0 else { throw SyncError(.io, "cannot set the time of \(url.path): errno \(errno)") }
        }
    }

    /// Opens the file at `url` for reading and writing, made when missing and emptied when
    /// `truncating`. Like every file the client writes, never through a link: one planted at a
    /// partial or staged file's name is refused, not followed (its target is not rewritten).
    static func open(_ url: URL, truncating: Bool) throws -> FileHandle {
        let descriptor = Foundation.open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (truncating ? O_TRUNC : 0), 0o644)
        guard descriptor >= 0 else { throw openFailure(url) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Why `open(2)` of `url` just failed.
    private static func openFailure(_ url: URL) -> SyncError {
        errno == ELOOP
            ? SyncError(.io, "\(url.path) is not a file Depot made (a link?): remove it")
            : SyncError(.io, "cannot write \(url.path): errno \(errno)")
    }

    /// `rename(2)`, without making it durable: see ``synchronize(_:in:)``.
    static func rename(_ source: URL, to destination: URL) throws {
        guard Foundation.rename(source.path, destination.path) == 0 else {
            throw SyncError(.io, "cannot rename \(source.lastPathComponent) to \(destination.path): errno \(errno)")
        }
    }
}
