import Foundation

/// Where verified files wait for the switch: `.depot/staging/{first two hex digits}/{sha256}`.
/// Spread over 256 folders: creating thousands of files in one folder can be several times
/// slower on ext4 than in a few hundred (inode allocation searches the folder's block group; on
/// this project's test machine 1.9 s against 0.23 s for 10,000 files, though how much varies
/// with the disk's state). Paths are built as strings: a sync of 100,000 files spent a fifth of
/// its CPU appending URL components.
struct StagingFolder {
    /// The folder's path.
    let path: String

    init(_ folder: URL) {
        path = folder.path
    }

    /// The subfolder of the content `sha256`.
    private func subfolder(_ sha256: String) -> String { path + "/" + sha256.prefix(2) }

    /// Where the content `sha256` is staged.
    private func stagedPath(_ sha256: String) -> String { subfolder(sha256) + "/" + sha256 }

    /// Where a client from before the subfolders staged the content `sha256`.
    private func flatPath(_ sha256: String) -> String { path + "/" + sha256 }

    /// The staged file of the content `sha256`.
    func file(_ sha256: String) -> URL {
        URL(fileURLWithPath: stagedPath(sha256), isDirectory: false)
    }

    /// The staged file of `sha256`, to be written: its subfolder made if needed.
    func fileToWrite(_ sha256: String) -> URL {
        _ = mkdir(subfolder(sha256), 0o755)
        return file(sha256)
    }

    /// Renames the staged file of `sha256` (see ``journaled(_:)``) to `destination`, not durably;
    /// `false` when it is gone: a rename is the last use of a staged file, so it was moved
    /// before. One `rename(2)` in the common case: the file's absence is looked into only when
    /// a rename fails.
    func move(_ sha256: String, to destination: URL) throws -> Bool {
        for source in [stagedPath(sha256), flatPath(sha256)] {
            if rename(source, destination.path) == 0 { return true }
            let error = errno
            // Missing: the staged file, or the destination's folder (an error, not "moved").
            guard error == ENOENT, access(source, F_OK) != 0 else {
                throw SyncError(.io, "cannot rename \(sha256) to \(destination.path): errno \(error)")
            }
        }
        return false
    }

    /// The staged file of `sha256` as a switch journal names it: in its subfolder, or, for a
    /// journal written by a client from before the subfolders, directly in the folder.
    func journaled(_ sha256: String) -> URL {
        let flat = flatPath(sha256)
        return access(flat, F_OK) == 0 ? URL(fileURLWithPath: flat, isDirectory: false) : file(sha256)
    }
}
