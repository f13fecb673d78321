import DepotFiles
import DepotManifest
import DepotPolicy
import Foundation

/// The folder's layout (``FolderLayout``) as a sync's steps meet it: the trees of release
/// folders, the folder a sync compares and builds on, and the refusal of the other layout.
extension SyncContext {
    /// With release folders, removes the trees that are neither current nor staged nor named
    /// by a switch under way, nor the previous release's when it is kept
    /// (``Configuration/keepsPreviousRelease``), and that nobody holds
    /// (``ReleaseTrees/collect(keeping:)``).
    func collectTrees() {
        guard configuration.layout == .releaseFolders, let folder = try? folder.open() else { return }
        let trees = ReleaseTrees(folder: folder)
        trees.collect {
            // Read in the order a release goes through them (staged, then a journal, then the
            // link), so a tree moving along meanwhile is found in one of them.
            let staged = self.folder.decoded(.staged, as: StagedRelease.self)?.journal.tree
            let switching = self.folder.decoded(.journal, as: ReleaseJournal.self)?.tree
            let current = try? trees.current()
            let previous = self.configuration.keepsPreviousRelease ? SyncState.load(from: self.folder).previous?.tree : nil
            return Set([staged, switching, current, previous].compactMap { $0 })
        }
    }

    /// The tree the folder holds its release in, with release folders; `nil` in place or before
    /// the first sync.
    ///
    /// - Throws: ``SyncError`` `.io` when the folder holds a release but no tree: it was synced
    ///   in place.
    func heldTree(of held: HeldRelease?) throws -> String? {
        guard configuration.layout == .releaseFolders else { return nil }
        let tree = try ReleaseTrees(folder: try folder.open()).current()
        if let held, tree == nil { throw Self.notReleaseFolders(held, in: directoryPath) }
        return tree
    }

    /// The folder of the files a sync compares and builds on: the sync folder in place, the
    /// tree held with release folders (a name no tree has before the first sync).
    func contentPath(tree: String?) -> String {
        guard configuration.layout == .releaseFolders else { return directoryPath }
        return directoryPath + "/" + ReleaseTrees.treePath(tree ?? "none")
    }

    static func notReleaseFolders(_ release: HeldRelease, in path: String) -> SyncError {
        FolderLayout.refusal(configured: .releaseFolders, found: .inPlace, release: release.number, in: path)
            ?? SyncError(.io, "\(path) holds release \(release.number) in place")
    }

    /// Refuses a folder that holds its release in the other layout than this client's
    /// (``Configuration/layout``), either way, before anything is changed: the first step of a
    /// sync, a check, a download, an apply and an open.
    ///
    /// - Throws: ``SyncError`` `.io`, saying which layout the folder holds its release in.
    func checkLayout() throws {
        guard let release = SyncState.load(from: folder).release else { return }
        let found = FolderLayout.found(currentIsLink: try folder.with { try $0.kind(of: ReleaseTrees.link) } == S_IFLNK)
        if let refusal = FolderLayout.refusal(configured: configuration.layout, found: found, release: release.number, in: directoryPath) {
            throw refusal
        }
    }
}

extension SyncContext {
    /// Makes the tree of `release` (``ReleaseTrees/build(_:entries:fetched:held:staging:)``):
    /// every file of `entries`, those `plan` fetched from staging and the others from the tree
    /// `held`; durable before it is named in a journal. Returns its name, and its lock, held
    /// exclusively until the tree is staged or applied: a collection meanwhile leaves it.
    func buildTree(of release: HeldRelease, entries: [ReleaseEntry], plan: ReleasePlan, held: String?) throws -> (name: String, lock: FileLock) {
        let staging = StagingFolder(try folder.open())
        let name = ReleaseTrees.newName(number: release.number)
        guard let lock = try folderCall({ try FileLock.acquire(ReleaseTrees.lockPath(name), in: staging.folder, exclusive: true) }) else {
            throw SyncError(.io, "cannot lock the release folder \(name)")
        }
        let fetched = Set(plan.fetches.map(\.entry.path))
        let made = try ReleaseTrees(folder: staging.folder).build(name, entries: entries, fetched: fetched, held: held, staging: staging)
        try folderCall { try Durability.synchronize(made, in: staging.folder) }
        return (name, lock)
    }
}
