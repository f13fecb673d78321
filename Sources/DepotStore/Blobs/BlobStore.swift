import Crypto
import DepotFiles
import DepotHTTP
import Logging
import NIOCore
import NIOPosix
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content-addressed storage: every blob is stored once, under its SHA-256, beside an optional
/// gzip variant.
///
/// Layout under the data directory:
/// ```
/// blobs/ab/ab12…ef       the content
/// blobs/ab/ab12…ef.gz    its gzip variant, when one is kept
/// tmp/                   files being written; emptied when the store opens
/// ```
/// A blob appears under its final name only once it is complete and durable: content is written
/// to `tmp/`, fsynced, renamed into place, and the directory fsynced. A crash leaves at most a
/// stray file in `tmp/`, never a partial blob.
public struct BlobStore: Sendable {
    /// `<data>`.
    public let dataDirectory: FilePath
    /// `<data>/blobs`.
    public let directory: FilePath
    /// `<data>/tmp`, on the same file system so that renames are atomic.
    public let temporaryDirectory: FilePath
    public let configuration: BlobStoreConfiguration
    let fileSystem: FileSystem
    /// The data folder, through which every file of the store is made, renamed and removed
    /// (``dataFolder()``); `nil` for a store opened for reading over a missing folder.
    let folder: ContainedFolder?
    let holds = BlobHolds()

    private init(dataDirectory: FilePath, configuration: BlobStoreConfiguration, fileSystem: FileSystem, folder: ContainedFolder?) {
        self.dataDirectory = dataDirectory
        directory = dataDirectory.appending("blobs")
        temporaryDirectory = dataDirectory.appending("tmp")
        self.configuration = configuration
        self.fileSystem = fileSystem
        self.folder = folder
    }

    /// Opens (creating if needed) the store under `dataDirectory` and removes temporary files a
    /// previous process left behind.
    public static func open(
        dataDirectory: FilePath,
        configuration: BlobStoreConfiguration = .init(),
        fileSystem: FileSystem = .shared,
        logger: Logger? = nil
    ) async throws -> BlobStore {
        do {
            let folder = try ContainedFolder(root: dataDirectory.string)
            let store = BlobStore(dataDirectory: dataDirectory, configuration: configuration, fileSystem: fileSystem, folder: folder)
            try folder.makeFolder("blobs")
            // Files only: the shard folders a clean run leaves are no sign of an upload cut short.
            let leftovers = try await store.temporaryFileCount()
            try folder.removeTree("tmp")
            if leftovers > 0 {
                logger?.notice("Removed temporary files left by an earlier run", metadata: ["count": "\(leftovers)"])
            }
            try folder.makeFolder("tmp")
            return store
        } catch {
            throw StoreError(.io, "Cannot prepare the data directory \(dataDirectory)", cause: error)
        }
    }

    /// How many files (not folders) the temporary folder holds, at any depth; 0 when it is missing.
    private func temporaryFileCount() async throws -> Int {
        guard try await fileSystem.info(forFileAt: temporaryDirectory, infoAboutSymbolicLink: true)?.type == .directory else { return 0 }
        return try await fileSystem.withDirectoryHandle(atPath: temporaryDirectory) { folder in
            var count = 0
            for try await entry in folder.listContents(recursive: true) where entry.type != .directory { count += 1 }
            return count
        }
    }

    /// The store under `dataDirectory` for reading only: nothing is made or removed, so a
    /// process that reads beside a running server (`depot export`) never touches its uploads
    /// under way.
    public static func reading(dataDirectory: FilePath, fileSystem: FileSystem = .shared) -> BlobStore {
        BlobStore(
            dataDirectory: dataDirectory,
            configuration: .init(),
            fileSystem: fileSystem,
            folder: try? ContainedFolder(root: dataDirectory.string, creating: false)
        )
    }

    /// Where the content with this SHA-256 lives.
    public func path(forSHA256 sha256: String) -> FilePath {
        directory.appending(String(sha256.prefix(2))).appending(sha256)
    }

    /// Where the gzip variant of the content with this SHA-256 lives.
    public func gzipPath(forSHA256 sha256: String) -> FilePath {
        directory.appending(String(sha256.prefix(2))).appending(sha256 + ".gz")
    }

    /// Stores the content of the file at `path`; see ``ingest(_:compresses:indexing:verify:)``.
    public func ingest(contentsOf path: FilePath, compresses: Bool = true) async throws -> BlobRecord {
        do {
            return try await fileSystem.withFileHandle(forReadingAt: path) { handle in
                try await ingest(handle.readChunks(chunkLength: .kibibytes(256)), compresses: compresses)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "Cannot read \(path)", cause: error)
        }
    }

    /// Stores a stream of bytes in one pass: SHA-256 and MD5 are computed and the gzip variant
    /// is compressed while the bytes are written, so the content is never held whole in memory.
    /// Storing content that is already present changes nothing on disk.
    ///
    /// The blob comes back *held*: collection leaves it alone until the caller has recorded it
    /// (in the catalog, in the public site) and calls ``release(_:)``.
    ///
    /// - Parameters:
    ///   - compresses: False for content that is compressed already (patches, packed blocks):
    ///     it gets no gzip variant, and no time goes to trying.
    ///   - tap: Makes the content's block index from the same bytes, meanwhile.
    ///   - verify: Called with the digests once every byte is written and before the blob gets
    ///     its name; an error it throws discards the content and is rethrown.
    public func ingest<Chunks: AsyncSequence>(
        _ chunks: Chunks,
        compresses: Bool = true,
        indexing tap: BlockIndexTap? = nil,
        verify: (BlobRecord) throws -> Void = { _ in }
    ) async throws -> BlobRecord where Chunks.Element == ByteBuffer {
        var writer = try await BlobWriter.start(in: self, compresses: compresses, indexing: tap)
        do {
            for try await chunk in chunks {
                try await writer.append(chunk)
            }
            return try await writer.commit(verify: verify)
        } catch {
            await writer.discard()
            // The source's own errors (a client gone, an upload too large) and `verify`'s pass
            // through unchanged; file system errors become `StoreError`s.
            throw error is FileSystemError ? Self.storeError(error) : error
        }
    }

    /// Whether the store has the blob `sha256` now; collection may remove it later, unless it
    /// is held (``holdIfStored(_:)``).
    public func isStored(_ sha256: String) async throws -> Bool {
        try await fileSystem.info(forFileAt: path(forSHA256: sha256)) != nil
    }

    /// Holds the blob `sha256` if the store has it, as ``ingest(_:compresses:indexing:verify:)`` does: collection
    /// leaves it alone until ``release(_:)``. Returns false, holding nothing, when it is absent.
    public func holdIfStored(_ sha256: String) async throws -> Bool {
        holds.hold(sha256)
        if try await isStored(sha256) { return true }
        holds.release(sha256)
        return false
    }

    /// Holds those of `hashes` the store has, as ``holdIfStored(_:)`` does one; returns them.
    /// The existence checks run in one trip to NIO's thread pool, not one per blob: a commit
    /// of 100,000 files asks this of all of them.
    public func holdIfStored(_ hashes: Set<String>) async throws -> Set<String> {
        for sha256 in hashes { holds.hold(sha256) }
        let stored = try await stored(among: hashes)
        for sha256 in hashes where !stored.contains(sha256) { holds.release(sha256) }
        return stored
    }

    /// Which of `hashes` the store has now; see ``isStored(_:)``.
    public func stored(among hashes: Set<String>) async throws -> Set<String> {
        let paths = hashes.map { ($0, path(forSHA256: $0)) }
        return try await NIOThreadPool.singleton.runIfActive {
            Set(paths.filter { $0.1.withPlatformString { SystemFileExists($0) } }.map(\.0))
        }
    }

    /// The blobs held now: stored, or being made, and not yet recorded by their writer.
    public var held: Set<String> { holds.held }

    /// Ends the hold ``ingest(_:compresses:indexing:verify:)`` placed on a blob.
    public func release(_ sha256: String) {
        holds.release(sha256)
    }

    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? FileSystemError {
            let errno = (error.cause as? FileSystemError.SystemCallError)?.errno
            if error.code == .resourceExhausted || errno == .noSpace || errno == .diskQuotaExceeded {
                return StoreError(.noSpace, "The disk is full", cause: error)
            }
            return StoreError(.io, "Writing to the store failed", cause: error)
        }
        return StoreError(.io, "Writing to the store failed: \(error)")
    }
}

extension BlobStore {
    /// Deletes every blob (and gzip variant) that is not held, not in `referenced` and whose file
    /// was last modified before `cutoff`. Returns how many blobs went. A download that has the
    /// file open keeps reading it: the data stays until the last descriptor closes.
    ///
    /// `referenced` is asked only after the folder is listed and the holds are read: a writer
    /// records its blob before releasing it, so every listed blob is held, or referenced, or
    /// garbage. A blob and its gzip variant go together, under one look at the holds: a commit
    /// that holds the blob between two unlinks would otherwise list a variant that is gone, and
    /// is never made again. The blob goes first, so a crash between the two leaves a variant
    /// without its blob, which the next upload of that content completes.
    ///
    /// - Parameter removed: Called after each blob's files are gone (tests race a writer there).
    public func removeBlobs(
        olderThan cutoff: HTTPDate,
        referenced: () async throws -> Set<String>,
        removed: (String) async throws -> Void = { _ in }
    ) async throws -> Int {
        let entries = try await fileSystem.withDirectoryHandle(atPath: directory) { directory in
            var entries: [DirectoryEntry] = []
            for try await batch in directory.listContents(recursive: true).batched() {
                entries.append(contentsOf: batch)
            }
            return entries
        }
        let keep = try await holds.held.union(referenced())
        var files: [String: [DirectoryEntry]] = [:]
        for entry in entries where entry.type == .regular {
            let name = entry.name.string
            let sha256 = name.hasSuffix(".gz") ? String(name.dropLast(3)) : name
            guard sha256.utf8.count == 64, !keep.contains(sha256) else { continue }
            files[sha256, default: []].append(entry)
        }
        var count = 0
        for (sha256, found) in files {
            var old = true
            for entry in found {
                let info = try await fileSystem.info(forFileAt: entry.path, infoAboutSymbolicLink: true)
                old = old && info.map { Int64($0.lastDataModificationTime.seconds) < cutoff.secondsSince1970 } ?? true
            }
            guard old else { continue }
            // The blob before its variant.
            let doomed = found.sorted { !$0.name.string.hasSuffix(".gz") && $1.name.string.hasSuffix(".gz") }
            // A publish may have stored this content again since `keep` was read: the unlinks
            // happen only if no writer holds it now (see ``BlobHolds/removeUnlessHeld(_:_:)``).
            let unlinked = holds.removeUnlessHeld(sha256) {
                for entry in doomed { remove(entry.path) }
            }
            guard unlinked else { continue }
            if found.contains(where: { !$0.name.string.hasSuffix(".gz") }) { count += 1 }
            try await removed(sha256)
        }
        return count
    }
}

extension BlobStore {
    /// A new name in the temporary folder (emptied at start-up), ending in `.extension`.
    public func temporaryPath(extension: String) -> FilePath {
        temporaryDirectory.appending("\(String(UInt64.random(in: .min ... .max), radix: 36)).\(`extension`)")
    }

    /// Creates and removes a file in the temporary folder; throws when the store cannot be written.
    public func checkWritable() async throws {
        let probe = temporaryDirectory.appending("ready-\(UInt64.random(in: .min ... .max))")
        close(try createFile(probe))
        remove(probe)
    }
}
