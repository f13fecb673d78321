import Foundation
import _NIOFileSystem

/// How a data folder is made whole, for a restore and an import alike: built beside its place
/// in a staging folder, made durable, then put in place by one rename, so a crash leaves either
/// no data folder or a complete one.
enum DataFolder {
    /// Refuses a `data` that holds anything: a restore or an import never mixes with, or
    /// replaces, a data folder in use.
    static func refuseNonEmpty(_ data: URL, doing what: String) throws {
        // Not a file, nor a link: what is put in place replaces the path, and must not take a
        // file given by mistake (a config) with it.
        var status = stat()
        if lstat(data.path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw StoreError(.invalidInput, "\(data.path) is not a folder (a file or a link): \(what) into a new folder")
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: data.path), !entries.isEmpty {
            throw StoreError(.invalidInput, "\(data.path) is not empty: \(what) into a new folder, then point data.path at it")
        }
    }

    /// The staging folder beside `data` (`.{name}.{suffix}`), empty, with the store's `blobs/`
    /// and `tmp/`.
    static func staging(for data: URL, suffix: String) throws -> URL {
        let staging = data.deletingLastPathComponent().appendingPathComponent(".\(data.lastPathComponent).\(suffix)")
        let manager = FileManager.default
        try? manager.removeItem(at: staging)
        try manager.createDirectory(at: staging.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try manager.createDirectory(at: staging.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        return staging
    }

    /// Makes `staging` durable and renames it to `data` (an empty folder there is replaced).
    static func place(_ staging: URL, as data: URL) throws {
        #if os(Linux)
        try SystemSynchronizeFileSystem(of: FilePath(staging.path))
        #endif
        let manager = FileManager.default
        if manager.fileExists(atPath: data.path) { try manager.removeItem(at: data) }
        try SystemRename(FilePath(staging.path), to: FilePath(data.path))
        try SystemSynchronize(FilePath(data.deletingLastPathComponent().path))
    }

    /// Hard-links `source` at `target` (its folder made), or copies it where the two are on
    /// different file systems; returns whether it linked. Blobs are immutable, so a link is a
    /// copy that costs nothing.
    @discardableResult
    static func linkOrCopy(_ source: URL, to target: URL) throws -> Bool {
        let manager = FileManager.default
        try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            try manager.linkItem(at: source, to: target)
            return true
        } catch {
            try manager.copyItem(at: source, to: target)
            return false
        }
    }
}
