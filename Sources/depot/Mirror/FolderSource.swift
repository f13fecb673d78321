import DepotClient
import DepotManifest
import Foundation

/// A tree in a local folder (an export, a `depot mirror` folder, a copy carried to an air-gapped
/// network) as a source for `depot mirror` and `depot import`: read as an origin is, every
/// document and file checked by the same code, nothing believed because it is local.
struct FolderSource: MirrorSourcing {
    /// The folder the tree is in.
    let root: URL
    /// Where checked copies of files are made: `.mirror/` in the destination folder.
    let partialFolder: URL

    var name: String { root.path }

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        let url = root.appendingPathComponent(object.path)
        guard try Self.isPlainFile(url) else { return .missing }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return .missing }
        defer { try? handle.close() }
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            // A folder where a file should be, or a file that cannot be read.
            return .missing
        }
        guard bytes.count <= maximumBytes else { throw SyncError(.corrupt, "\(url.path) is larger than the limit of \(maximumBytes) bytes") }
        return .found(Array(bytes), entityTag: nil)
    }

    /// A copy of the file `object`, checked against `sha256` and `size`; `nil` when the folder
    /// has none.
    func file(_ object: TreeObject, sha256: String, size: Int64) async throws -> URL? {
        guard ContentAddress.isSHA256(sha256), size >= 0 else { throw MirrorError("\(object) is listed with an invalid SHA-256 or size") }
        let source = root.appendingPathComponent(object.path)
        guard try Self.isPlainFile(source) else { return nil }
        let copy = partialFolder.appendingPathComponent(sha256)
        try MirrorSource.refuseLinks(partialFolder, copy)
        try? FileManager.default.removeItem(at: copy)
        // A copy, never a link: a link would share its bytes with the source folder, whose
        // writer could change them after the check.
        try FileManager.default.copyItem(at: source, to: copy)
        guard let (held, heldSize) = try? StagedContent.digest(of: copy), held == sha256, heldSize == size else {
            try? FileManager.default.removeItem(at: copy)
            throw SyncError(.corrupt, "\(source.path) does not have the SHA-256 and size the release lists")
        }
        return copy
    }

    /// Whether `url` is a plain file, not following a link; `false` when nothing is there. A
    /// link in the source folder is refused: it would make the copy read a file outside it.
    static func isPlainFile(_ url: URL) throws -> Bool {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return false }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SyncError(.corrupt, "\(url.path) is not a plain file (a link or a folder): refused")
        }
        return true
    }
}
