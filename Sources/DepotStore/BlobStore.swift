import CompressNIO
import Crypto
import Logging
import NIOCore
import _NIOFileSystem

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
    /// `<data>/blobs`.
    public let directory: FilePath
    /// `<data>/tmp`, on the same file system so that renames are atomic.
    public let temporaryDirectory: FilePath
    public let configuration: BlobStoreConfiguration
    let fileSystem: FileSystem

    /// Opens (creating if needed) the store under `dataDirectory` and removes temporary files a
    /// previous process left behind.
    public static func open(
        dataDirectory: FilePath,
        configuration: BlobStoreConfiguration = .init(),
        fileSystem: FileSystem = .shared,
        logger: Logger? = nil
    ) async throws -> BlobStore {
        let store = BlobStore(
            directory: dataDirectory.appending("blobs"),
            temporaryDirectory: dataDirectory.appending("tmp"),
            configuration: configuration,
            fileSystem: fileSystem
        )
        do {
            try await fileSystem.createDirectory(at: store.directory, withIntermediateDirectories: true)
            let removed = try await fileSystem.removeItem(at: store.temporaryDirectory, recursively: true)
            if removed > 1 {
                logger?.notice("Removed temporary files left by an earlier run", metadata: ["count": "\(removed - 1)"])
            }
            try await fileSystem.createDirectory(at: store.temporaryDirectory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, "Cannot prepare the data directory \(dataDirectory)", cause: error)
        }
        return store
    }

    /// Where the content with this SHA-256 lives.
    public func path(forSHA256 sha256: String) -> FilePath {
        directory.appending(String(sha256.prefix(2))).appending(sha256)
    }

    /// Where the gzip variant of the content with this SHA-256 lives.
    public func gzipPath(forSHA256 sha256: String) -> FilePath {
        directory.appending(String(sha256.prefix(2))).appending(sha256 + ".gz")
    }

    /// Stores the content of the file at `path`; see ``ingest(_:)``.
    public func ingest(contentsOf path: FilePath) async throws -> BlobRecord {
        do {
            return try await fileSystem.withFileHandle(forReadingAt: path) { handle in
                try await ingest(handle.readChunks(chunkLength: .kibibytes(256)))
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
    public func ingest<Chunks: AsyncSequence>(_ chunks: Chunks) async throws -> BlobRecord where Chunks.Element == ByteBuffer {
        var writer = try await BlobWriter.start(in: self)
        do {
            for try await chunk in chunks {
                try await writer.append(chunk)
            }
            return try await writer.commit()
        } catch {
            await writer.discard()
            throw Self.storeError(error)
        }
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
