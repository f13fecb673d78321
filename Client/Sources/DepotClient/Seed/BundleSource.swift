import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

/// A Depot tree shipped as plain files (``DepotClient/seed(from:)``): the folder `depot export`
/// writes (`channels/`, `releases/`, `pages/`, `blobs/`, `roots/`), read through its descriptor
/// (``DepotFiles/ContainedFolder``): a link in it is refused, never followed. What it holds is
/// believed only once ``TreeReader`` has checked it, as from any server.
struct BundleSource: TreeSource {
    let folder: ContainedFolder

    /// The tree at `url`, which must be a folder.
    ///
    /// - Throws: ``SyncError`` `.io` when there is no folder there.
    init(_ url: URL) throws {
        do {
            folder = try ContainedFolder(root: url.path, creating: false)
        } catch {
            throw SyncError(.io, "cannot seed from \(url.path): no folder Depot exported there (\(error))")
        }
    }

    var name: String { folder.root }

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        guard let status = try folderCall({ try folder.status(of: object.path) }) else { return .missing }
        guard status.st_size <= maximumBytes else {
            throw SyncError(.corrupt, "\(location(of: object)) is larger than \(maximumBytes) bytes")
        }
        guard let bytes = try folderCall({ try folder.read(object.path) }) else { return .missing }
        guard bytes.count <= maximumBytes else { throw SyncError(.corrupt, "\(location(of: object)) is larger than \(maximumBytes) bytes") }
        return .found(bytes, entityTag: nil)
    }

    /// The blob of `entry` (`blobs/{sha256}`, its bytes as published), checked against the
    /// entry's size and SHA-256 as it is copied to `staged`; written beside it first, so that a
    /// copy that fails leaves nothing staged.
    ///
    /// - Throws: ``SyncError`` `.corrupt` when the blob is missing or not the entry's bytes.
    func stage(_ entry: ReleaseEntry, to staged: FolderFile) throws {
        let blob = FolderFile(folder: folder, path: try TreeReader<Self>.named { try TreeObject.blob(entry.sha256) }.path)
        guard blob.exists else { throw SyncError(.corrupt, "\(blob.shown) is missing: the seed lacks \(entry.path)") }
        let copy = staged.appending(".seeding")
        do {
            try StagedContent.verifyAndStage(blob, coding: .identity, entry: entry, to: copy)
            try StagedContent.setModificationDate(of: copy, to: entry)
            try copy.rename(to: staged)
        } catch {
            copy.remove()
            throw error
        }
    }
}
