import DepotFiles
import DepotManifest
import DepotPolicy
import Foundation

/// Reading the release a folder holds, in either layout (``FolderLayout``).
extension DepotClient {
    /// Opens the release the folder holds for reading, or returns `nil` before the first sync.
    /// Its files stay as they are until the result is closed: with
    /// ``FolderLayout/releaseFolders``, in the release's own folder while switches go on; in
    /// place, by holding the switch off (``withCurrentRelease(_:)``). A switch a killed sync
    /// left half done is finished first.
    ///
    /// ```swift
    /// let open = try client.openCurrentRelease()!
    /// let catalog = try DatabaseQueue(path: open.url(for: "catalog.sqlite").path)
    /// // … queries; client.apply() when a download is staged; then:
    /// try catalog.close()
    /// open.close()  // the old release's folder goes
    /// ```
    public func openCurrentRelease() throws -> OpenRelease? {
        let context = self.context
        try context.finishInterruptedSwitch()
        try context.checkLayout()
        // The folder's read lock, shared: no switch runs while the tree and state are read.
        guard let readLock = try folder.with({ try FileLock.acquire(Self.readLock, in: $0, exclusive: false) }) else { return nil }
        guard let release = SyncState.load(from: folder).release else {
            readLock.unlock()
            return nil
        }
        guard configuration.layout == .releaseFolders else {
            return OpenRelease(release: release, directory: directory, lock: readLock) {}
        }
        defer { readLock.unlock() }
        let folder = try folder.open()
        guard let tree = try ReleaseTrees(folder: folder).current() else { throw SyncContext.notReleaseFolders(release, in: directoryPath) }
        guard let lock = try folderCall({ try FileLock.acquire(ReleaseTrees.lockPath(tree), in: folder, exclusive: false) }) else {
            throw SyncError(.io, "cannot lock the release folder \(tree)")
        }
        return OpenRelease(
            release: release,
            directory: URL(fileURLWithPath: directoryPath + "/" + ReleaseTrees.treePath(tree), isDirectory: true),
            lock: lock
        ) { context.collectTrees() }
    }
}
