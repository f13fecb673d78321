import Foundation

#if canImport(CLinuxCalls)
import CLinuxCalls
#endif

/// What `stat(2)` says of a file that tells a changed file from an unchanged one, as git's index
/// keeps it: when all of it is equal and none of it is recent (``PublishIndex``), the content
/// is taken as unchanged without being read.
public struct FileStatus: Sendable, Hashable {
    public var size: Int64
    /// Modification time, nanoseconds since 1970.
    public var modified: Int64
    /// Status-change time (ctime), nanoseconds since 1970: moves whenever `modified` is set
    /// back by hand, or the file is replaced.
    public var changed: Int64
    public var inode: UInt64
    public var device: UInt64

    public init(size: Int64, modified: Int64, changed: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.modified = modified
        self.changed = changed
        self.inode = inode
        self.device = device
    }

    /// What a path is.
    enum Kind {
        case file, folder, other
    }

    /// The status of `path` (following symbolic links unless `follow` is false), and its kind;
    /// `nil` when it does not exist or cannot be read.
    static func of(_ path: String, follow: Bool = true) -> (FileStatus, Kind)? {
        #if canImport(CLinuxCalls)
        var status = depot_file_status()
        guard depot_file_status(path, follow ? 1 : 0, &status) == 0 else { return nil }
        let kind: Kind = status.kind == 1 ? .file : status.kind == 2 ? .folder : .other
        return (
            FileStatus(size: status.size, modified: status.modified_ns, changed: status.changed_ns, inode: status.inode, device: status.device),
            kind
        )
        #else
        let attributes: [FileAttributeKey: Any]
        do {
            attributes =
                try follow
                ? FileManager.default.attributesOfItem(atPath: (path as NSString).resolvingSymlinksInPath)
                : FileManager.default.attributesOfItem(atPath: path)
        } catch {
            return nil
        }
        let type = attributes[.type] as? FileAttributeType
        let kind: Kind = type == .typeRegular ? .file : type == .typeDirectory ? .folder : .other
        let modified = Int64(((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) * 1e9)
        return (
            FileStatus(
                size: (attributes[.size] as? NSNumber)?.int64Value ?? 0,
                modified: modified,
                changed: modified,
                inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
                device: (attributes[.systemNumber] as? NSNumber)?.uint64Value ?? 0
            ),
            kind
        )
        #endif
    }
}
