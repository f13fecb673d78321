/// How a sync folder holds its release (``DepotClient/Configuration/layout``).
public enum FolderLayout: String, Sendable, CaseIterable {
    /// The release's files are the folder's own: a switch renames new files over old ones, and
    /// waits for readers (``DepotClient/withCurrentRelease(_:)``). For a folder the app reads a
    /// file at a time, or whose databases it closes before ``DepotClient/apply()``: the switch
    /// refuses to replace a database SQLite has open (``SyncError/Code/inUse``).
    case inPlace = "in-place"
    /// Every release is a folder of its own, `.depot/trees/{tree}/`, and the link `current`
    /// names the one held: ``DepotClient/apply()`` replaces the link, without waiting for anyone.
    /// An app that keeps a database open (``DepotClient/openCurrentRelease()``) keeps reading
    /// its release, with its `-wal` and `-shm`, until it reopens; the old folder is removed once
    /// nobody holds it. Files that do not change are hard links between releases, read-only; a
    /// SQLite database (a file that starts with SQLite's header) is a copy of the publisher's
    /// bytes in each release, so what the app writes to it stays in that release
    /// (``ReleaseTrees``).
    case releaseFolders = "release-folders"
}

extension FolderLayout {
    /// The layout of a folder that holds a release: release folders when `current` is a link
    /// (Depot's), in place otherwise.
    static func found(currentIsLink: Bool) -> FolderLayout {
        currentIsLink ? .releaseFolders : .inPlace
    }

    /// Why a sync in `configured` may not go on in the folder at `path`, which holds release
    /// `number` in `found`; `nil` when the two agree. Refused both ways: a sync in place on
    /// release folders would put a release's files beside the trees, and one in release folders
    /// on a folder in place would leave the files held in place behind.
    static func refusal(configured: FolderLayout, found: FolderLayout, release number: Int64, in path: String) -> SyncError? {
        switch (configured, found) {
        case (.inPlace, .inPlace), (.releaseFolders, .releaseFolders):
            return nil
        case (.releaseFolders, .inPlace):
            return SyncError(.io, "\(path) holds release \(number) in place, not in release folders: sync into a new folder")
        case (.inPlace, .releaseFolders):
            return SyncError(
                .io,
                "\(path) holds release \(number) in release folders, not in place: sync it with the release-folders layout (--layout release-folders, Configuration.layout), or into a new folder"
            )
        }
    }
}
