import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock(2)`) on a file of the sync folder, held until ``unlock()`` or
/// until the process ends, whichever comes first: a killed sync never leaves a lock behind.
final class FileLock {
    private(set) var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock, shared or exclusive. With `wait` false, returns `nil` when another
    /// process holds it.
    static func acquire(_ url: URL, exclusive: Bool, wait: Bool = true) throws -> FileLock? {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SyncError(.io, "cannot open \(url.path): errno \(errno)") }
        var operation = exclusive ? LOCK_EX : LOCK_SH
        if !wait { operation |= LOCK_NB }
        while flock(descriptor, operation) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw SyncError(.io, "cannot lock \(url.path): errno \(failure)")
        }
        return FileLock(descriptor: descriptor)
    }

    /// Releases the lock, then closes the descriptor. `LOCK_UN` first: a child process forked
    /// while the lock was held (by any thread, until it runs `exec`) shares the open file
    /// description, and a `close` alone would leave the lock held until that child execs.
    func unlock() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { unlock() }
}
