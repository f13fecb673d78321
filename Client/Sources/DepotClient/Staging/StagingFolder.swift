import Crypto
import DepotConcurrency
import DepotFiles
import DepotHTTP
import Foundation

/// Where verified files wait for the switch: `.depot/staging/{first two hex digits}/{sha256}`.
/// Spread over 256 folders: creating thousands of files in one folder can be several times
/// slower on ext4 than in a few hundred (inode allocation searches the folder's block group; on
/// this project's test machine 1.9 s against 0.23 s for 10,000 files, though how much varies
/// with the disk's state). Paths are built as strings: a sync of 100,000 files spent a fifth of
/// its CPU appending URL components.
///
/// Its subfolders are made through the sync folder's descriptor (``SyncFolder``), each once
/// (a link in place of one is refused), and a staged file leaves by a rename through it.
final class StagingFolder: Sendable {
    /// The folder, in the sync folder.
    static let path = ".depot/staging"
    /// Where downloads under way are kept, in the sync folder.
    static let partialPath = ".depot/partial"

    let folder: ContainedFolder
    /// The subfolders made (or found to be folders) so far.
    private let made = Locked<Set<String>>([])

    init(_ folder: ContainedFolder) {
        self.folder = folder
    }

    /// The staged file of `sha256`, in the sync folder.
    private func stagedPath(_ sha256: String) -> String { Self.path + "/" + sha256.prefix(2) + "/" + sha256 }

    /// Where a client from before the subfolders staged the content `sha256`.
    private func flatPath(_ sha256: String) -> String { Self.path + "/" + sha256 }

    /// The staged file of the content `sha256`.
    func file(_ sha256: String) -> FolderFile {
        FolderFile(folder: folder, path: stagedPath(sha256))
    }

    /// The size of the staged file of `sha256`, read through the folder; `nil` when none is
    /// staged.
    func stagedSize(_ sha256: String) -> Int64? {
        (try? folder.status(of: stagedPath(sha256))).flatMap { $0.map { Int64($0.st_size) } }
    }

    /// The staged file of `sha256`, to be written: its subfolder made if needed.
    func fileToWrite(_ sha256: String) throws -> FolderFile {
        let subfolder = Self.path + "/" + sha256.prefix(2)
        if !made.withLock({ $0.contains(subfolder) }) {
            try folderCall { try folder.makeFolder(subfolder) }
            made.withLock { _ = $0.insert(subfolder) }
        }
        return file(sha256)
    }

    /// The partial file `name` in `.depot/partial/`: a download under way.
    func partialFile(_ name: String) -> FolderFile {
        FolderFile(folder: folder, path: Self.partialPath + "/" + name)
    }

    /// A new name in the folder, for a copy on its way to the release (``ReleaseJournal``).
    func temporaryPath() -> String { Self.path + "/" + UUID().uuidString }

    /// Where the folders a release adds are staged whole (``ReleaseSwitch/stageNewFolders(_:staging:)``).
    static let foldersPath = path + "/folders"

    /// Every file and folder staged in the new folder `path`, as paths of the sync folder; a
    /// link there is listed, never followed.
    func filesStaged(in path: String) throws -> [String] {
        let root = Self.foldersPath + "/" + path
        return [root] + (try folderCall { try folder.tree(below: root) }).map(\.path)
    }

    /// Puts the content `move` names at `destination`, a path of the sync folder, not durably:
    /// a copy of the staged file when `move` copies (with the move's time), else the staged file
    /// itself. `false` when the staged file is gone: a rename is its last use, so it was placed
    /// before.
    func place(_ move: ReleaseJournal.Move, at destination: String) throws -> Bool {
        guard move.copy else { return try self.move(move.staged, to: destination) }
        let staged = journaled(move.staged)
        guard try folderCall({ try folder.status(of: staged) }) != nil else { return false }
        let copy = temporaryPath()
        try folderCall { try folder.copy(staged, to: copy) }
        if let modified = move.modified { try? folder.setModificationTime(of: copy, seconds: modified) }
        return try folderCall { try folder.rename(copy, to: destination) }
    }

    /// Renames the staged file of `sha256` (see ``journaled(_:)``) to `destination`, a path of
    /// the sync folder, not durably; `false` when it is gone: a rename is the last use of a
    /// staged file, so it was moved before.
    func move(_ sha256: String, to destination: String) throws -> Bool {
        try folderCall {
            try folder.rename(stagedPath(sha256), to: destination) || folder.rename(flatPath(sha256), to: destination)
        }
    }

    /// The SHA-256 of the staged file of `sha256` (in its subfolder, or where a client from
    /// before the subfolders staged it) as its bytes are now, read through the folder; `nil`
    /// when none is staged. What ``DepotClient/apply()`` checks a staged file by: a power cut
    /// after a download may have left it empty or cut short.
    func currentDigest(of sha256: String) throws -> String? {
        try folderCall {
            guard let path = try [stagedPath(sha256), flatPath(sha256)].first(where: { try folder.status(of: $0) != nil }) else { return nil }
            let descriptor = try folder.open(path, mode: .read)
            let input = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            var hasher = SHA256()
            while let chunk = try input.read(upToCount: 256 * 1024), !chunk.isEmpty { hasher.update(data: chunk) }
            return Hex.string(hasher.finalize())
        }
    }

    /// Removes the staged file of `sha256`, wherever it is staged, through the folder.
    func remove(_ sha256: String) throws {
        try folderCall {
            try folder.remove(stagedPath(sha256))
            try folder.remove(flatPath(sha256))
        }
    }

    /// The path in the sync folder of the staged file of `sha256` as a switch journal names it:
    /// in its subfolder, or, for a journal written by a client from before the subfolders,
    /// directly in the folder.
    func journaled(_ sha256: String) -> String {
        (try? folder.kind(of: flatPath(sha256))) != nil ? flatPath(sha256) : stagedPath(sha256)
    }
}
