import DepotFiles
import Foundation

/// Making many writes durable at once. A sync stages hundreds or thousands of files; an fsync of
/// each, and of each folder after each rename, would cost more than downloading them. Instead
/// the writes are made durable together at the two points where it matters: before the switch's
/// journal is written, and before the new state is saved. Files are written without it
/// (``FolderFile/write(_:modified:)``): Foundation's `Data.write` and `FileManager.createFile`
/// fsync every file, which cost a cold sync of small files an eighth of its time.
enum Durability {
    /// Makes every write made so far to the files and folders at `paths` (below `folder`), and
    /// to the folders holding them, durable. On Linux one `syncfs(2)` of the file system holding
    /// `folder` does it, in one journal commit; elsewhere each file and each distinct folder is
    /// fsynced, through the folder's descriptor (a link there is not synchronized through).
    static func synchronize(_ paths: @autoclosure () throws -> [String], in folder: ContainedFolder) throws {
        #if os(Linux)
        try folderCall { try folder.synchronizeFileSystem() }
        #else
        let paths = try paths()
        let parents = Set(paths.map { path in path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "" })
        try folderCall {
            for path in paths {
                switch try? folder.kind(of: path) {
                case S_IFREG?: try folder.synchronize(file: path)
                case S_IFDIR?: try folder.synchronize(folder: path)
                default: continue
                }
            }
            for parent in parents where parent.isEmpty || (try? folder.kind(of: parent)) == S_IFDIR { try folder.synchronize(folder: parent) }
        }
        #endif
    }
}
