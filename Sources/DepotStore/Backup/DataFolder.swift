import DepotFiles
import Foundation

/// How a data folder is made whole, for a restore and an import alike: built beside its place
/// in a staging folder, made durable, then put in place by one rename, so a crash leaves either
/// no data folder or a complete one. Every entry is reached through ``ContainedFolder`` (the
/// folder holding the data folder, opened by its path as the operator gave it): no link
/// followed, and the placement never removes what it did not make: an empty folder at `data`
/// is removed, then the rename refuses a name taken meanwhile, so a server started on `data`
/// during a long import keeps its catalog.
struct DataFolder {
    /// The folder holding the data folder.
    let parent: ContainedFolder
    /// The data folder's name in `parent`.
    let name: String
    /// The data folder's path, for messages.
    let path: String

    /// The place of the data folder `data`, which must not hold anything: a restore or an
    /// import never mixes with, or replaces, a data folder in use.
    init(_ data: URL, doing what: String) throws {
        let data = data.standardizedFileURL
        path = data.path
        name = data.lastPathComponent
        parent = try ContainedFolder(root: data.deletingLastPathComponent().path)
        try refuseNonEmpty(doing: what)
    }

    /// Refuses a data folder that holds anything, or is not a folder (a file, a link): what is
    /// put in place must not take a file given by mistake (a config) with it.
    func refuseNonEmpty(doing what: String) throws {
        guard let kind = try parent.kind(of: name) else { return }
        guard kind == S_IFDIR else { throw StoreError(.invalidInput, "\(path) is not a folder (a file or a link): \(what) into a new folder") }
        guard try parent.isEmptyFolder(name) else {
            throw StoreError(.invalidInput, "\(path) is not empty: \(what) into a new folder, then point data.path at it")
        }
    }

    /// The staging folder's name beside the data folder.
    func stagingName(_ suffix: String) -> String { ".\(name).\(suffix)" }

    /// The staging folder beside the data folder (`.{name}.{suffix}`), empty (a leftover of a
    /// run that stopped is removed, no link in it followed), with the store's `blobs/` and
    /// `tmp/`.
    func staging(suffix: String) throws -> ContainedFolder {
        let staging = stagingName(suffix)
        try parent.removeTree(staging)
        try parent.makeFolder(staging + "/blobs")
        try parent.makeFolder(staging + "/tmp")
        return try parent.subfolder(staging)
    }

    /// Removes the staging folder, after a failure.
    func discard(suffix: String) {
        try? parent.removeTree(stagingName(suffix))
    }

    /// Makes the staging folder durable and renames it to the data folder: an empty folder
    /// there is replaced; anything else, there or put there meanwhile, refuses the placement
    /// and is left as it is (``ContainedFolder/placeFolder(_:as:)``). `beforePlacing` runs
    /// between the last check and the rename (a test's seam).
    func place(_ staging: ContainedFolder, suffix: String, beforePlacing: () async throws -> Void = {}) async throws {
        try staging.synchronizeFileSystem()
        try await beforePlacing()
        try parent.placeFolder(stagingName(suffix), as: name)
        try parent.synchronize(folder: "")
    }
}
