import DepotConcurrency

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock(2)`) on a file of a folder Depot writes, held until ``unlock()``
/// or until the process ends, whichever comes first: a killed process never leaves a lock
/// behind. The file is opened through the folder's descriptor (``ContainedFolder``), so a link
/// planted in its place is refused, never followed (it would create or lock its target).
///
/// The one file lock of the codebase: the export folder's writer lock (`depot export`, `depot
/// mirror`, the server's export) and the sync folder's locks (`DepotClient`).
public final class FileLock: Sendable {
    private let held: Locked<Int32>

    /// The lock file's descriptor (-1 once unlocked).
    public var descriptor: Int32 { held.withLock { $0 } }

    private init(descriptor: Int32) {
        held = Locked(descriptor)
    }

    /// Takes the lock on `path` in `folder` (the file made when missing), shared or exclusive.
    /// With `wait` false, returns `nil` when another process holds it.
    public static func acquire(_ path: String, in folder: ContainedFolder, exclusive: Bool, wait: Bool = true) throws -> FileLock? {
        let descriptor = try folder.open(path, mode: .readWrite)
        var operation = exclusive ? LOCK_EX : LOCK_SH
        if !wait { operation |= LOCK_NB }
        while flock(descriptor, operation) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK {
                close(descriptor)
                return nil
            }
            let failure = FolderError.system("Cannot lock \(folder.root)/\(path)")
            close(descriptor)
            throw failure
        }
        return FileLock(descriptor: descriptor)
    }

    /// Releases the lock, then closes the descriptor. `LOCK_UN` first: a child process forked
    /// while the lock was held (by any thread, until it runs `exec`) shares the open file
    /// description, and a `close` alone would leave the lock held until that child execs.
    public func unlock() {
        held.withLock { descriptor in
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    deinit { unlock() }
}
