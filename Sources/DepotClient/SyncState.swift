import Foundation

/// What the client remembers between syncs, in one small file of the sync folder
/// (`.depot/state.json`), always replaced atomically.
struct SyncState: Codable, Equatable {
    /// The ETag of the manifest the files were last synced to, sent as `If-None-Match`.
    var manifestETag: String?
    var files: [String: File] = [:]

    struct File: Codable, Equatable {
        var version: Int64
        var sha256: String
        var etag: String
        var size: Int64
    }

    static func load(from url: URL) -> SyncState {
        guard let data = try? Data(contentsOf: url), let state = try? JSONDecoder().decode(SyncState.self, from: data) else {
            return SyncState()
        }
        return state
    }

    func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try AtomicFile.write(try encoder.encode(self), to: url)
    }
}

/// Replacing a file so that a reader, or a crash, sees the old content or the new, never a part.
enum AtomicFile {
    /// Writes `data` beside `url`, fsyncs it, renames it over `url` and fsyncs the folder.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw SyncError(.io, "cannot write \(temporary.path)")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            try replace(url, with: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// Renames `source` (a complete, fsynced file in the same folder) over `destination`.
    static func replace(_ destination: URL, with source: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw SyncError(.io, "cannot rename \(source.lastPathComponent) to \(destination.path): errno \(errno)")
        }
        let folder = open(destination.deletingLastPathComponent().path, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
