import DepotManifest
import Foundation

/// How much space the file system of a sync folder has free: read before a download, which
/// stages every changed file whole (``UpdatePlan/requiredBytes``), so that a disk too small is
/// said before a byte is fetched, not as a write failing mid-way.
public struct FreeSpace: Sendable {
    /// The bytes free to the app (not those kept for the superuser) on the file system holding
    /// the folder at a path; `nil` when it cannot be told.
    public let read: @Sendable (_ path: String) -> Int64?

    public init(read: @escaping @Sendable (_ path: String) -> Int64?) {
        self.read = read
    }

    /// `statvfs(3)`: the blocks available to an unprivileged writer times the fragment size.
    public static let fileSystem = FreeSpace { path in
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }

    /// `bytes` in the unit a person reads (`10.6 MB`), for messages.
    static func text(_ bytes: Int64) -> String { ByteCountText(bytes) }
}
