import DepotFiles
import Foundation

/// The first folder missing on the way to a sync folder, seen before a sync makes it: a first
/// sync that fails and a check remove what they made (the sync folder's `.depot`: install id,
/// locks, staged files), then the folders on the way that are left empty, so that a typo, a
/// full disk or a look at what a sync would do leaves nothing behind. A first sync that reports
/// files it could not fetch keeps the folder only when it holds what the next sync resumes from
/// (``removeUnlessResumable()``). Nothing else is removed: a file another process put in the new
/// folder meanwhile keeps it. Removed through its parent's descriptor
/// (``DepotFiles/ContainedFolder``), never following a link.
struct MadeFolder {
    /// The folder holding the missing one, which exists.
    let parent: String
    /// The missing folder's name in it.
    let name: String
    /// The sync folder, relative to ``parent``: ``name``, or a folder below it.
    let folder: String

    /// The first missing folder of `path`; `nil` when `path` exists.
    init?(path: String) {
        var missing = URL(fileURLWithPath: path).standardizedFileURL
        guard !Self.exists(missing.path) else { return nil }
        while case let parent = missing.deletingLastPathComponent(), parent.path != missing.path, !Self.exists(parent.path) {
            missing = parent
        }
        let parent = missing.deletingLastPathComponent()
        guard parent.path != missing.path else { return nil }
        self.parent = parent.path
        self.name = missing.lastPathComponent
        let full = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        self.folder = full.dropFirst(parent.pathComponents.count).joined(separator: "/")
    }

    /// Whether anything (a folder, a file, a link) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// After a first sync that reported files it could not fetch (it switched to nothing: the
    /// folder holds only `.depot`): removes what it made, unless it holds files verified and
    /// staged or downloads begun, which the next sync takes on from (a first install on a flaky
    /// link goes on where it stopped, rather than from nothing).
    func removeUnlessResumable() {
        guard let parent = try? ContainedFolder(root: parent) else { return }
        // A file at any depth (staging shards its files in folders), or what cannot be read.
        let progress = [SyncFolder.ownFolders[1], SyncFolder.ownFolders[2]].contains { own in
            (try? parent.tree(below: folder + "/" + own).contains { $0.kind != S_IFDIR }) != false
        }
        if !progress { remove() }
    }

    /// Removes what the sync made in the folder, then each folder from the sync folder up to
    /// the missing one that is left empty; best effort (the sync's own error is the one to tell).
    func remove() {
        guard let parent = try? ContainedFolder(root: parent) else { return }
        try? parent.removeTree(folder + "/" + SyncFolder.ownFolders[0])
        var path = folder
        while path.hasPrefix(name), (try? parent.removeEmptyFolder(path)) == true, let slash = path.lastIndex(of: "/") {
            path = String(path[..<slash])
        }
    }
}
