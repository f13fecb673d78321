#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a sync does to the files of its folder besides creating, renaming and removing them:
/// map one into memory, copy one, give one a time, make one durable, list a folder's tree. Each
/// file is opened through the folder's descriptor without following a link, so a link planted
/// in place of a staged or partial file is refused, never read or written through.
extension ContainedFolder {
    /// The regular file at `path` mapped into memory, read-only: as large as it is, without
    /// being read whole; `nil` when nothing is there. A link (or a folder) in its place is
    /// refused.
    public func map(_ path: String) throws -> MappedFile? {
        guard try status(of: path) != nil else { return nil }
        let file = try open(path, mode: .read)
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw FolderError.system("Cannot read \(root)/\(path)") }
        return try MappedFile(descriptor: file, count: Int(status.st_size), shown: "\(root)/\(path)")
    }

    /// Copies the regular file at `source` to `destination`, a new name (nothing may be there),
    /// both below the folder. Not durable: the caller synchronizes.
    public func copy(_ source: String, to destination: String) throws {
        let input = try open(source, mode: .read)
        defer { close(input) }
        let output = try create(destination)
        defer { close(output) }
        do {
            try copyFile(from: input, named: "\(root)/\(source)", to: output, named: "\(root)/\(destination)")
        } catch {
            try? remove(destination)
            throw error
        }
    }

    /// Gives the regular file at `path` the modification (and access) time `seconds` since 1970,
    /// through a descriptor of it: a link in its place is refused, what it names unchanged.
    public func setModificationTime(of path: String, seconds: Int64) throws {
        let file = try open(path, mode: .read)
        defer { close(file) }
        let time = timespec(tv_sec: Int(seconds), tv_nsec: 0)
        let times = [time, time]
        guard futimens(file, times) == 0 else { throw FolderError.system("Cannot set the time of \(root)/\(path)") }
    }

    /// `fsync(2)` of the regular file at `path`, opened without following a link.
    public func synchronize(file path: String) throws {
        let file = try open(path, mode: .read)
        defer { close(file) }
        try Durability.synchronize(descriptor: file, name: "\(root)/\(path)")
    }

    /// Every entry below the folder `path` (its own path below this folder, and its kind,
    /// `S_IFREG`, `S_IFDIR`, `S_IFLNK`…), folders before what they hold; none when it is missing.
    /// A link is listed as a link, never followed.
    public func tree(below path: String) throws -> [(path: String, kind: mode_t)] {
        guard let folder = try openFolder(path) else { return [] }
        defer { close(folder) }
        return try tree(of: folder, path: path)
    }

    private func tree(of folder: Int32, path: String) throws -> [(path: String, kind: mode_t)] {
        var found: [(path: String, kind: mode_t)] = []
        for name in try entries(of: folder, path: path).sorted() {
            let inner = path.isEmpty ? name : "\(path)/\(name)"
            var status = stat()
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { throw FolderError.system("Cannot look at \(root)/\(inner)") }
            found.append((inner, status.st_mode & S_IFMT))
            guard status.st_mode & S_IFMT == S_IFDIR else { continue }
            let subfolder = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard subfolder >= 0 else {
                throw errno == ELOOP || errno == ENOTDIR ? refused(inner) : FolderError.system("Cannot open \(root)/\(inner)")
            }
            defer { close(subfolder) }
            found += try tree(of: subfolder, path: inner)
        }
        return found
    }
}

/// A file mapped into memory, read-only, until this is released: a large local copy or a
/// patch's base read where it lies, not copied into memory (``ContainedFolder/map(_:)``).
public final class MappedFile: @unchecked Sendable {
    /// The file's bytes; valid while this is alive.
    public let bytes: UnsafeRawBufferPointer

    init(descriptor: Int32, count: Int, shown: String) throws {
        guard count > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0)
        // MAP_FAILED, spelt out: it is not imported on every platform.
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { throw FolderError.system("Cannot map \(shown)") }
        bytes = UnsafeRawBufferPointer(start: address, count: count)
    }

    deinit {
        if let start = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: start), bytes.count) }
    }
}
