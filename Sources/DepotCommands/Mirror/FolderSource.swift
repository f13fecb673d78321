import DepotClient
import DepotFiles
import DepotManifest
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tree in a local folder (an export, a `depot mirror` folder, a copy carried to an air-gapped
/// network) as a source for `depot mirror` and `depot import`: read as an origin is, every
/// document and file checked by the same code, nothing believed because it is local. Read
/// through the folder's descriptor (``DepotFiles/ContainedFolder``): a link anywhere in it, on
/// the way to a file or in its place, is refused, never followed.
struct FolderSource: MirrorSourcing {
    /// The folder the tree is in.
    let root: URL
    /// Where checked copies of files are made: `.mirror/` in the destination folder.
    let partialFolder: ContainedFolder

    var name: String { root.path }

    /// The source folder, open.
    private func folder() throws -> ContainedFolder {
        do {
            return try ContainedFolder(root: root.path, creating: false)
        } catch {
            throw SyncError(.corrupt, "\(root.path) cannot be opened: \(error)")
        }
    }

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        let folder = try folder()
        guard try Self.isPlainFile(object.path, in: folder) else { return .missing }
        // A folder where a file should be, or a file that cannot be read: missing.
        guard let file = try? folder.open(object.path, mode: .read) else { return .missing }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .missing }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        guard bytes.count <= maximumBytes else {
            throw SyncError(.corrupt, "\(root.path)/\(object.path) is larger than the limit of \(maximumBytes) bytes")
        }
        return .found(bytes, entityTag: nil)
    }

    /// A copy of the file `object`, checked against `sha256` and `size`; `nil` when the folder
    /// has none.
    func file(_ object: TreeObject, sha256: String, size: Int64) async throws -> URL? {
        guard ContentAddress.isSHA256(sha256), size >= 0 else { throw MirrorError("\(object) is listed with an invalid SHA-256 or size") }
        let folder = try folder()
        guard try Self.isPlainFile(object.path, in: folder) else { return nil }
        let copy = URL(fileURLWithPath: partialFolder.root).appendingPathComponent(sha256)
        try MirrorSource.refuseLinks(partialFolder, sha256)
        // A copy, never a link: a link would share its bytes with the source folder, whose
        // writer could change them after the check.
        try partialFolder.replace(sha256, durable: false, copying: object.path, from: folder)
        guard let (held, heldSize) = try? StagedContent.digest(of: copy), held == sha256, heldSize == size else {
            try? partialFolder.remove(sha256)
            throw SyncError(.corrupt, "\(root.path)/\(object.path) does not have the SHA-256 and size the release lists")
        }
        return copy
    }

    /// Whether `path` is a plain file of `folder`, not following a link; `false` when nothing is
    /// there. A link in the source folder (there, or on the way) is refused: it would make the
    /// copy read a file outside it.
    static func isPlainFile(_ path: String, in folder: ContainedFolder) throws -> Bool {
        let kind: mode_t?
        do {
            kind = try folder.kind(of: path)
        } catch {
            throw SyncError(.corrupt, "\(folder.root)/\(path) is not a plain file (a link or a folder): refused")
        }
        guard let kind else { return false }
        guard kind == S_IFREG else { throw SyncError(.corrupt, "\(folder.root)/\(path) is not a plain file (a link or a folder): refused") }
        return true
    }
}
