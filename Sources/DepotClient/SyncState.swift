import DepotManifest
import Foundation

/// The release a sync folder holds.
public struct HeldRelease: Codable, Sendable, Equatable {
    /// The release id: the SHA-256 of its document.
    public var id: String
    public var number: Int64
    /// The channel it came from, and the serial of the channel document that named it.
    public var channel: String
    public var serial: Int64
    /// The version of the root that document was signed under, if any: serials compare only
    /// under one root.
    public var root: Int64?
    /// How many files it has.
    public var files: Int64
    /// How the channel document that named it was judged.
    public var signature: ChannelCheck.SignatureStatus
}

/// What the client remembers between syncs, in one small file of the sync folder
/// (`.depot/state.json`), always replaced atomically. The files of the release it holds are in
/// the release's pages, kept in `.depot/pages/`, so this file stays small at any size.
struct SyncState: Codable, Equatable {
    /// The ETag of the channel document last followed, sent as `If-None-Match`.
    var channelETag: String?
    /// The channel document last followed: a 304 answers for it, so every sync checks it again
    /// (expiry, and signatures against the keys trusted now) before believing the 304.
    var channel: ChannelDocument?
    var release: HeldRelease?

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
        try Durability.rename(source, to: destination)
        try Durability.synchronizeFolder(destination.deletingLastPathComponent())
    }
}
