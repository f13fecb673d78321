#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Making writes durable: the one place Depot calls `fsync(2)` and `syncfs(2)`, for the client's
/// sync folder and the server's data folder alike.
///
/// Many writes are made durable at once where it matters. A sync stages hundreds or thousands of
/// files, a batch upload as many blobs; an fsync of each, and of each folder after each rename,
/// would cost more than writing them. Instead they are written without it and made durable
/// together (``synchronize(_:in:)``): before a switch's journal or a blob's rename, before the
/// state or the catalog says they are there.
public enum Durability {
    /// `fsync(2)` of `descriptor`; `name` says what it is in the error.
    public static func synchronize(descriptor: Int32, name: @autoclosure () -> String) throws {
        guard fsync(descriptor) == 0 else { throw FolderError.system("Cannot sync \(name())") }
    }

    /// Commits every write to the file system holding `descriptor`, in one journal commit
    /// (`syncfs(2)`; `F_FULLFSYNC` of it on Apple platforms; `fsync(2)` elsewhere).
    static func synchronizeFileSystem(descriptor: Int32, name: @autoclosure () -> String) throws {
        #if os(Linux)
        guard linuxCall(syncfs: descriptor) == 0 else { throw FolderError.system("Cannot sync the file system of \(name())") }
        #elseif canImport(Darwin)
        guard fcntl(descriptor, F_FULLFSYNC) == 0 else { throw FolderError.system("Cannot sync \(name())") }
        #else
        try synchronize(descriptor: descriptor, name: name())
        #endif
    }

    /// Makes every write made so far to the files and folders at `paths` (below `folder`), and
    /// to the folders holding them, durable. On Linux one `syncfs(2)` of the file system holding
    /// `folder` does it, in one journal commit; elsewhere each file and each distinct folder is
    /// fsynced, through the folder's descriptor (a link there is not synchronized through).
    public static func synchronize(_ paths: @autoclosure () throws -> [String], in folder: ContainedFolder) throws {
        #if os(Linux)
        try folder.synchronizeFileSystem()
        #else
        let paths = try paths()
        let parents = Set(paths.map { path in path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "" })
        for path in paths {
            switch try? folder.kind(of: path) {
            case S_IFREG?: try folder.synchronize(file: path)
            case S_IFDIR?: try folder.synchronize(folder: path)
            default: continue
            }
        }
        for parent in parents where parent.isEmpty || (try? folder.kind(of: parent)) == S_IFDIR { try folder.synchronize(folder: parent) }
        #endif
    }
}

#if os(Linux)
/// `syncfs(2)`, which glibc declares only with `_GNU_SOURCE`, looked up in the C library (no C
/// module: DepotFiles imports none, so that `struct stat` keeps one owner in every module).
private func linuxCall(syncfs descriptor: Int32) -> Int32 {
    typealias Call = @convention(c) (Int32) -> Int32
    guard let symbol = dlsym(nil, "syncfs") else { return fsync(descriptor) }
    return unsafeBitCast(symbol, to: Call.self)(descriptor)
}
#endif
