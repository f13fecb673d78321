#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Hard links and permission bits between entries of contained folders: each entry reached
/// through its folder's descriptor, no link followed, so that a link swapped into a folder is
/// never what is linked or changed.
extension ContainedFolder {
    /// Makes `path` a hard link to the file at `sourcePath` of `source` (a contained folder, this
    /// one or another on the same file system). A link at `sourcePath`, or on the way to it, is
    /// refused, never followed: one swapped in after a check is removed again from `path`.
    /// Returns false, linking nothing, when `link(2)` cannot (another file system); throws when
    /// something is at `path` already.
    public func link(_ sourcePath: String, from source: ContainedFolder, at path: String) throws -> Bool {
        try source.withParent(of: sourcePath) { from, fromName in
            try withParent(of: path, creating: true) { to, name in
                // No AT_SYMLINK_FOLLOW: a link at `sourcePath` is linked as itself, then refused.
                guard linkat(from, fromName, to, name, 0) == 0 else {
                    if errno == EEXIST { throw refused(path) }
                    if errno == ENOENT { throw FolderError.system("Cannot link \(source.root)/\(sourcePath)") }
                    return false
                }
                var status = stat()
                guard fstatat(to, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else {
                    _ = unlinkat(to, name, 0)
                    throw source.refused(sourcePath)
                }
                return true
            }
        }
    }

    /// Sets the permission bits of the file at `path` to `mode`, through a descriptor opened
    /// without following a link: a link there (or on the way) is refused, what it names unchanged.
    public func setPermissions(_ path: String, _ mode: mode_t) throws {
        let file = try open(path, mode: .read)
        defer { close(file) }
        guard fchmod(file, mode) == 0 else { throw FolderError.system("Cannot change the permissions of \(root)/\(path)") }
    }
}
