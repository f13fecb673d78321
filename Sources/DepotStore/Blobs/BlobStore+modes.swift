import DepotFiles
import _NIOFileSystem

extension BlobStore {
    /// The mode of every file the store writes, through NIO: Depot's one file mode
    /// (``DepotFiles/FileModes/file``), which the process's umask narrows. An export links these
    /// files, so the web server reads them with the modes the store gave them.
    static let filePermissions = FilePermissions(rawValue: FileModes.file)
    /// The mode of the store's folders (``DepotFiles/FileModes/folder``).
    static let folderPermissions = FilePermissions(rawValue: FileModes.folder)
}
