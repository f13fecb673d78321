import DepotHTTP
import Logging
import NIOCore
import _NIOFileSystem

/// The folder of static files served as they are (`public/`).
///
/// A scan walks the folder, and for every new or changed file stores a copy in the blob store,
/// which computes its SHA-256 and gzip variant once. Unchanged files (same size, modification and
/// status-change times) keep their record, so a rescan reads only what changed.
///
/// What is served:
/// - regular files, and symbolic links whose target is a regular file inside the folder;
/// - not hidden files or folders (a name starting with `.`), nor anything a link leads to outside
///   the folder, nor folders reached through a link.
///
/// `Last-Modified` is the file's modification time, capped at the scan time (RFC 9110 §8.8.2.1).
/// It is marked strong (§8.8.2.2) only when the scan happened in a later second than that time,
/// and the previous content of the same path did not carry the same second: then no two contents
/// can share that `Last-Modified`, and the date form of `If-Range` is safe to honour.
public struct PublicDirectory: Sendable {
    /// The folder's canonical path.
    public let root: FilePath
    let store: BlobStore
    let fileSystem: FileSystem

    /// - Throws: ``StoreError`` when `path` does not exist or is not a folder.
    public init(path: String, store: BlobStore, fileSystem: FileSystem = .shared) throws {
        guard let canonical = SystemRealPath(path) else {
            throw StoreError(.invalidInput, "The public folder \(path) does not exist")
        }
        self.root = FilePath(canonical)
        self.store = store
        self.fileSystem = fileSystem
    }

    /// Scans the folder.
    ///
    /// - Parameters:
    ///   - previous: The result of the previous scan, whose records are reused for unchanged files.
    ///   - now: The current time, read once per file stored.
    /// - Returns: The files by relative path, and the SHA-256 of each blob this scan stored:
    ///   those are held (``BlobStore/release(_:)``) until the caller has put the files to use.
    public func scan(
        previous: [String: PublicFile] = [:],
        now: () -> HTTPDate,
        logger: Logger? = nil
    ) async throws -> (files: [String: PublicFile], stored: [String]) {
        var files: [String: PublicFile] = [:]
        var stored: [String] = []
        let entries: [DirectoryEntry]
        do {
            entries = try await fileSystem.withDirectoryHandle(atPath: root) { directory in
                var entries: [DirectoryEntry] = []
                for try await batch in directory.listContents(recursive: true).batched() {
                    entries.append(contentsOf: batch)
                }
                return entries
            }
        } catch {
            try Task.checkCancellation()
            throw StoreError(.io, "Cannot list the public folder \(root)", cause: error)
        }
        for entry in entries {
            guard let relativePath = relativePath(of: entry.path) else { continue }
            do {
                guard let (target, fingerprint) = try await servableFile(entry) else { continue }
                if let known = previous[relativePath], known.fingerprint == fingerprint {
                    files[relativePath] = known
                    continue
                }
                let blob = try await storeFile(at: target)
                stored.append(blob.sha256)
                let scannedAt = now()
                let modified = HTTPDate(secondsSince1970: Int64(fingerprint.modified.seconds))
                let lastModified = min(modified, scannedAt)
                let earlier = previous[relativePath]
                let isStrong =
                    scannedAt > lastModified && (earlier == nil || earlier?.lastModified != lastModified || earlier?.blob.sha256 == blob.sha256)
                files[relativePath] = PublicFile(
                    relativePath: relativePath,
                    blob: blob,
                    lastModified: lastModified,
                    lastModifiedIsStrong: isStrong,
                    fingerprint: fingerprint
                )
                logger?.debug("Stored public file", metadata: ["path": "\(relativePath)", "sha256": "\(blob.sha256)"])
            } catch let error as StoreError where error.code == .noSpace {
                throw error
            } catch {
                // A cancelled scan ends: it must not return a list with the rest left out.
                try Task.checkCancellation()
                // A file that vanished or cannot be read between listing and reading is left out;
                // the next scan sees it again.
                logger?.warning("Skipped public file", metadata: ["path": "\(relativePath)", "error": "\(error)"])
            }
        }
        return (files, stored)
    }

    /// Stores the file at `target`, a regular file of the folder when it was listed. It may have
    /// changed since: it is opened without following a link in its last component, and the file
    /// actually opened must still be one this folder serves (Linux: its path read back from
    /// `/proc/self/fd`), so a file swapped for a link, or a folder for a link out of the tree,
    /// between listing and reading is not followed.
    func storeFile(at target: FilePath) async throws -> BlobRecord {
        do {
            return try await fileSystem.withFileHandle(forReadingAt: target, options: .init(followSymbolicLinks: false)) { handle in
                #if os(Linux)
                let opened = try await handle.withUnsafeDescriptor { SystemRealPath("/proc/self/fd/\($0.rawValue)") }
                guard let opened, relativePath(of: FilePath(opened)) != nil else {
                    throw StoreError(.invalidInput, "\(target) now leads to \(opened ?? "nothing"), which is not served")
                }
                #endif
                return try await store.ingest(handle.readChunks(chunkLength: .kibibytes(256)))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "Cannot read \(target)", cause: error)
        }
    }

    /// The `/`-separated path below the root, or `nil` for hidden entries and paths outside it.
    func relativePath(of path: FilePath) -> String? {
        guard path.starts(with: root) else { return nil }
        let rootComponents = root.components.count
        let components = path.components.dropFirst(rootComponents).map(\.string)
        guard !components.isEmpty, !components.contains(where: { $0.hasPrefix(".") }) else { return nil }
        return components.joined(separator: "/")
    }

    /// The file to read for `entry` and its fingerprint, or `nil` when it is not to be served.
    private func servableFile(_ entry: DirectoryEntry) async throws -> (FilePath, FileFingerprint)? {
        var target = entry.path
        switch entry.type {
        case .regular:
            break
        case .symlink:
            // The target must be a file this folder serves: inside it, and not hidden.
            guard let resolved = SystemRealPath(entry.path.string), relativePath(of: FilePath(resolved)) != nil else { return nil }
            target = FilePath(resolved)
        default:
            return nil
        }
        guard let info = try await fileSystem.info(forFileAt: target, infoAboutSymbolicLink: true), info.type == .regular else {
            return nil
        }
        let identity = SystemFileIdentity(info)
        let fingerprint = FileFingerprint(
            device: identity.device,
            inode: identity.inode,
            size: info.size,
            modified: info.lastDataModificationTime,
            statusChanged: info.lastStatusChangeTime
        )
        return (target, fingerprint)
    }
}
