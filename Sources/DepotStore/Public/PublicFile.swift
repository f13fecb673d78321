import DepotHTTP
import _NIOFileSystem

/// One file of the public folder, as the last scan stored it.
public struct PublicFile: Hashable, Sendable {
    /// The path below the public folder, `/`-separated, e.g. `css/site.css`.
    public let relativePath: String
    /// The stored copy that is served: requests never read the public folder itself, so the bytes
    /// sent always match the validators, even while a file is being rewritten.
    public let blob: BlobRecord
    /// The file's modification time, never later than the moment it was scanned.
    public let lastModified: HTTPDate
    /// Whether `lastModified` is a strong validator (RFC 9110 §8.8.2.2); see
    /// ``PublicDirectory`` for the rule.
    public let lastModifiedIsStrong: Bool
    /// What the scan compares to notice a change without reading the file.
    let fingerprint: FileFingerprint
}

/// The `stat` fields that change when a file's content is rewritten or replaced: its identity
/// (device and inode: a rename over it gives a new one, as does a restored backup), size, and
/// modification and status-change times.
struct FileFingerprint: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: FileInfo.Timespec
    let statusChanged: FileInfo.Timespec
}
