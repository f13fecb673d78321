import Foundation

/// Where verified files wait for the switch: `.depot/staging/{first two hex digits}/{sha256}`.
/// Spread over 256 folders: creating thousands of files in one folder can be several times
/// slower on ext4 than in a few hundred (inode allocation searches the folder's block group; on
/// this project's test machine 1.9 s against 0.23 s for 10,000 files, though how much varies
/// with the disk's state).
enum StagingFolder {
    /// The staged file of the content `sha256` below `folder`, its subfolder made if needed.
    static func file(_ sha256: String, in folder: URL) -> URL {
        let subfolder = folder.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
        _ = mkdir(subfolder.path, 0o755)
        return subfolder.appendingPathComponent(sha256)
    }

    /// The staged file of `sha256` as a switch journal names it: in its subfolder, or, for a
    /// journal written by a client from before the subfolders, directly in `folder`.
    static func journaled(_ sha256: String, in folder: URL) -> URL {
        let flat = folder.appendingPathComponent(sha256)
        return FileManager.default.fileExists(atPath: flat.path) ? flat : file(sha256, in: folder)
    }
}
