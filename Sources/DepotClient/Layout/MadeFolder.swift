import DepotFiles
import Foundation

/// The first folder missing on the way to a sync folder, seen before a sync makes it: a first
/// sync that fails removes it again, with all it made inside (install id, locks, staged files),
/// so that a typo or a full disk leaves nothing behind. Removed through its parent's descriptor
/// (``DepotFiles/ContainedFolder``), never following a link.
struct MadeFolder {
    /// The folder holding the missing one, which exists.
    let parent: String
    /// The missing folder's name in it.
    let name: String

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
    }

    /// Whether anything (a folder, a file, a link) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Removes the folder and everything in it; best effort (the sync's own error is the one
    /// to tell).
    func remove() {
        guard let parent = try? ContainedFolder(root: parent) else { return }
        try? parent.removeContents(of: name)
        _ = try? parent.removeEmptyFolder(name)
    }
}
