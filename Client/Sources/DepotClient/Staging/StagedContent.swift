import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation

/// A download checked against its release entry as it is written where the switch takes it
/// from: size and SHA-256 (of the content, decoded when it came in a content coding), and the entry's
/// modification time.
public enum StagedContent {
    /// The SHA-256 and size of a file: what a client, and `depot mirror`, check a download by.
    /// The file is opened through its folder's descriptor (``FolderFile``): a link in its
    /// place is refused.
    public static func digest(of url: URL) throws -> (String, Int64) {
        try digest(of: try FolderFile.at(url, creating: false))
    }

    /// The SHA-256 and size of a file of the sync folder, opened without following a link.
    static func digest(of file: FolderFile) throws -> (String, Int64) {
        try digest(of: try file.reading())
    }

    /// The SHA-256 and size of what `input` holds from where it stands; closes it.
    private static func digest(of input: FileHandle) throws -> (String, Int64) {
        defer { try? input.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try input.read(upToCount: 256 * 1024), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (Hex.string(hasher.finalize()), size)
    }

    /// Whether the file at `staged` holds `entry`'s content whole: what a sync that stopped
    /// before its switch staged, maybe before its writes were durable, is checked so before it
    /// is used (by the stager) or counted as done (by the plan).
    static func isIntact(_ staged: FolderFile, for entry: ReleaseEntry) -> Bool {
        guard let (sha256, size) = try? digest(of: staged) else { return false }
        return sha256 == entry.sha256 && size == entry.size
    }

    /// Gives a staged file the entry's `Last-Modified` as its modification time.
    static func setModificationDate(of staged: FolderFile, to entry: ReleaseEntry) throws {
        if let modified = entry.modifiedSeconds { try? staged.setModified(modified) }
    }

    /// Decodes (from `coding`) or copies the download into `staged`, checking size and SHA-256 against
    /// the entry. Throws ``SyncError`` `.corrupt` on any mismatch. Not fsynced: staged files are
    /// made durable together before the switch (``Durability``).
    static func verifyAndStage(_ partial: FolderFile, coding: ContentCoding, entry: ReleaseEntry, to staged: FolderFile) throws {
        let input = try partial.reading()
        defer { try? input.close() }
        let output = try staged.writing(truncating: true)
        defer { try? output.close() }
        func next() throws -> Data? { try input.read(upToCount: 256 * 1024) }
        try decodeChecked(coding: coding, entry: entry, chunks: next) { try output.write(contentsOf: $0) }
    }

    /// Checks a download held in memory (decoded from `coding`) against `entry` and leaves it at
    /// `staged` with the entry's modification time. Throws ``SyncError`` `.corrupt` on any
    /// mismatch, staging nothing.
    static func stage(_ data: Data, coding: ContentCoding, entry: ReleaseEntry, to staged: FolderFile) throws {
        var content = Data()
        var pending: Data? = data
        func next() -> Data? {
            defer { pending = nil }
            return pending
        }
        try decodeChecked(coding: coding, entry: entry, chunks: next) { content.append($0) }
        let verified = staged.appending(".verifying")
        try verified.write(content, modified: entry.modifiedSeconds)
        try verified.rename(to: staged)
    }

    /// Passes the content of `entry` to `write`, from the downloaded `chunks` (decoded from
    /// `coding`), checking it against the entry's size as it goes and its SHA-256 at the end: the
    /// one check of every download, streamed or in memory. Throws ``SyncError`` `.corrupt` on any
    /// mismatch.
    static func decodeChecked(coding: ContentCoding, entry: ReleaseEntry, chunks next: () throws -> Data?, write: (Data) throws -> Void) throws {
        var hasher = SHA256()
        var size: Int64 = 0
        let decoder: (any ContentDecoder)?
        do {
            decoder = try ContentDecoders.decoder(for: coding)
        } catch {
            throw SyncError(.corrupt, "the \(coding.rawValue) data of \(entry.path) cannot be decoded here: \(error)")
        }
        func take(_ data: Data) throws {
            size += Int64(data.count)
            guard size <= entry.size else { throw SyncError(.corrupt, "\(entry.path) is larger than the release says") }
            hasher.update(data: data)
            try write(data)
        }
        do {
            while let chunk = try next(), !chunk.isEmpty {
                if let decoder { try chunk.withUnsafeBytes { try decoder.decode($0) { try take(Data($0)) } } } else { try take(chunk) }
            }
            try decoder?.finish { try take(Data($0)) }
        } catch let error where ContentDecoders.isDecodingError(error) {
            throw SyncError(.corrupt, "the \(coding.rawValue) data of \(entry.path) is corrupt: \(error)")
        }
        if let decoder, !decoder.isFinished { throw SyncError(.corrupt, "the \(coding.rawValue) data of \(entry.path) is truncated") }
        let digest = Hex.string(hasher.finalize())
        guard size == entry.size, digest == entry.sha256 else {
            throw SyncError(.corrupt, "\(entry.path) does not match the release (SHA-256 \(digest), \(size) bytes)")
        }
    }
}
