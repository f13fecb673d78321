import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

/// A release path as a file of the sync folder: the one rule that refuses a path that would
/// leave the folder, or that is not safe on every platform (``DepotManifest/PortablePath``).
enum LocalPath {
    /// The file of `path` in the folder at `directoryPath`.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for an unsafe path.
    static func url(for path: String, in directoryPath: String) throws -> URL {
        // One URL from one string: appending segment by segment costs a URL parse each.
        URL(fileURLWithPath: directoryPath + "/" + (try relative(path)), isDirectory: false)
    }

    /// The file of `path` in the sync folder `folder`, below `contentPath` (the folder's own
    /// path, or a release tree's in it), touched through the folder's descriptor.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for an unsafe path, `.io` for a `contentPath` outside
    ///   the folder.
    static func file(for path: String, in contentPath: String, folder: ContainedFolder) throws -> FolderFile {
        let relative = try relative(path)
        if contentPath == folder.root { return FolderFile(folder: folder, path: relative) }
        guard contentPath.hasPrefix(folder.root + "/") else { throw SyncError(.io, "\(contentPath) is not in \(folder.root)") }
        return FolderFile(folder: folder, path: contentPath.dropFirst(folder.root.count + 1) + "/" + relative)
    }

    /// `path` as a relative path below the folder, refused when it is not safe on every platform.
    private static func relative(_ path: String) throws -> String {
        guard PortablePath.problem(path) == nil, let relative = safeRelativePath(path) else {
            throw SyncError(.corrupt, "the release names an unsafe path: \(path)")
        }
        return relative
    }

    /// `path` as `/`-separated segments that name nothing outside the folder, or `nil`. Nearly
    /// every path is plain (RFC 3986's unreserved characters, no dot or empty segment) and is
    /// taken in one pass; any other is checked by encoding and decoding it as a request path.
    private static func safeRelativePath(_ path: String) -> String? {
        let absolute = "/" + path
        if RequestPath.plainRelativePath(absolute[...]) != nil { return path }
        guard let decoded = try? RequestPath(decoding: "/" + RequestPath.encode(path)), !decoded.segments.isEmpty else { return nil }
        return decoded.relativePath
    }
}
