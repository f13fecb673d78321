import DepotFiles
import Foundation

/// The release a sync folder holds, held open for reading (``DepotClient/openCurrentRelease()``):
/// its files stay as they are until ``close()``, so an app can keep a database open on it.
///
/// - With ``FolderLayout/releaseFolders``, ``directory`` is the release's own folder: a switch
///   goes on meanwhile, and this folder stays, with its `-wal` and `-shm`, until it is closed;
///   the app reopens on the next ``DepotClient/openCurrentRelease()``.
/// - With ``FolderLayout/inPlace``, ``directory`` is the sync folder, and a switch waits until
///   this is closed (close it before ``DepotClient/apply()``).
///
/// Open files by their path in ``directory`` (``url(for:)``), never through the sync folder's
/// `current` link, which a switch moves on.
public final class OpenRelease: Sendable {
    /// The release.
    public let release: HeldRelease
    /// The folder holding its files.
    public let directory: URL
    private let lock: FileLock
    /// Run once closed: removes the releases nobody holds any longer.
    private let closed: @Sendable () -> Void

    init(release: HeldRelease, directory: URL, lock: FileLock, closed: @escaping @Sendable () -> Void) {
        self.release = release
        self.directory = directory
        self.lock = lock
        self.closed = closed
    }

    /// The file of the release at `path`.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for a path that would leave the folder.
    public func url(for path: String) throws -> URL {
        try LocalPath.url(for: path, in: directory.path)
    }

    /// Lets the release go: with release folders, the folder of a release no longer current is
    /// removed now, unless another reader holds it (then the last to close removes it). Close
    /// the app's connections to its files first.
    public func close() {
        guard lock.descriptor >= 0 else { return }
        lock.unlock()
        closed()
    }

    deinit { lock.unlock() }
}
