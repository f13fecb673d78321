import DepotFiles
import DepotManifest
import Foundation

/// Switching a sync folder from one release to the next, so that an app never sees files of two
/// releases: every new file is verified in `.depot/staging/` first; then a journal listing the
/// renames and removals is written (the commit point); then they are carried out under the
/// folder's read lock, and the new state is saved. A sync killed after the journal is written is
/// finished by the next sync, or by the next reader, before anyone reads.
///
/// ``SwitchProgress`` is the order of its steps, as a state machine; ``ReleaseSwitch`` carries
/// them out, and finishes a journal found at the next open.
///
/// An app reads a consistent release with ``DepotClient/withCurrentRelease(_:)``, which holds the
/// read lock shared: a switch waits for readers, readers wait for a switch.
struct ReleaseJournal: Codable, Equatable {
    /// The state once the switch is done.
    var state: SyncState
    var moves: [Move]
    /// Paths removed, before the moves.
    var removals: [String]
    /// Set, durably, once every removal is done: from then on they are never run again.
    var removalsDone: Bool?
    /// With release folders (``FolderLayout/releaseFolders``): the tree the `current` link is
    /// to name, whole and durable before the journal is written; the journal has no moves nor
    /// removals then.
    var tree: String?
    /// Folders the release adds whole, each staged at `.depot/staging/folders/{path}` with
    /// every file of it before the journal is written, and moved into place with one rename
    /// (``ReleaseSwitch/stageNewFolders(_:staging:)``), after the removals and before the moves.
    var folders: [String]?
    /// The journal's layout: ``currentFormat``; absent in the first one (no ``folders``).
    var format: Int?

    /// The layout this version writes and reads: 2 added ``folders``.
    static let currentFormat = 2

    /// Why this journal cannot be carried out as it is, or `nil`: every move must name a staged
    /// file by its SHA-256, so that a journal another process of the container wrote cannot
    /// reach a file outside the staging folder.
    var problem: String? {
        if let format, format > Self.currentFormat {
            return "it has format \(format), which this version of Depot does not read (it reads \(Self.currentFormat)): update the app"
        }
        if let tree, !ReleaseTrees.isName(tree) { return "it names no release folder (\(tree))" }
        return moves.first { !ContentAddress.isSHA256($0.staged) }.map { "a move of \($0.path) names no staged file (\($0.staged))" }
    }

    struct Move: Codable, Equatable {
        /// The file's name in `.depot/staging/`: its SHA-256, held as bytes.
        var staged: String {
            get { digest.text }
            set { digest = CompactHex(newValue) }
        }
        private var digest: CompactHex
        var path: String
        /// Copy instead of rename: the staged file serves a later move too.
        var copy: Bool
        /// Seconds since 1970: the file's `Last-Modified`.
        var modified: Int64?

        init(staged: CompactHex, path: String, copy: Bool, modified: Int64?) {
            self.digest = staged
            self.path = path
            self.copy = copy
            self.modified = modified
        }

        init(staged: String, path: String, copy: Bool, modified: Int64?) {
            self.init(staged: CompactHex(staged), path: path, copy: copy, modified: modified)
        }

        private enum CodingKeys: String, CodingKey {
            case digest = "staged"
            case path, copy, modified
        }
    }
}
