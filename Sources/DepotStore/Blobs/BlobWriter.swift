import Crypto
import DepotDelta
import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One blob being written: two temporary files (content and gzip variant) and their digests.
/// Owned by one task from `start` to `commit` or `discard`.
struct BlobWriter {
    private let store: BlobStore
    private let contentPath: FilePath
    private let gzipPath: FilePath
    private let content: StoreFile
    private let gzip: StoreFile
    /// Nil for content that is compressed already (patches, packed blocks): no gzip variant.
    private let compressor: GzipDeflater?
    /// Indexes the same bytes meanwhile, when the content gets a block index.
    private let tap: BlockIndexTap?
    /// Uploaded bytes not yet hashed, compressed and written: a request body arrives in
    /// chunks of a few KiB, and each file write is a trip to NIO's thread pool, so they are
    /// taken in batches of ``batchBytes``.
    private var pending = ByteBuffer()
    private var sha256 = SHA256()
    private var md5 = Insecure.MD5()
    private var gzipSHA256 = SHA256()
    private var size: Int64 = 0
    private var gzipSize: Int64 = 0

    static func start(in store: BlobStore, compresses: Bool, indexing tap: BlockIndexTap? = nil) async throws -> BlobWriter {
        let name = String(UInt64.random(in: .min ... .max), radix: 36)
        let contentPath = store.temporaryDirectory.appending("\(name).blob")
        let gzipPath = store.temporaryDirectory.appending("\(name).gz")
        do {
            let content = try StoreFile(creating: contentPath, in: store)
            let gzip: StoreFile
            do {
                gzip = try StoreFile(creating: gzipPath, in: store)
            } catch {
                Self.closeNow(content, in: store)
                throw error
            }
            let level = Int32(min(9, max(1, store.configuration.gzipLevel)))
            do {
                return BlobWriter(
                    store: store,
                    contentPath: contentPath,
                    gzipPath: gzipPath,
                    content: content,
                    gzip: gzip,
                    compressor: compresses ? try GzipDeflater(level: level) : nil,
                    tap: tap
                )
            } catch {
                Self.closeNow(content, in: store)
                Self.closeNow(gzip, in: store)
                throw error
            }
        } catch {
            throw BlobStore.storeError(error)
        }
    }

    private init(
        store: BlobStore,
        contentPath: FilePath,
        gzipPath: FilePath,
        content: StoreFile,
        gzip: StoreFile,
        compressor: GzipDeflater?,
        tap: BlockIndexTap?
    ) {
        self.store = store
        self.contentPath = contentPath
        self.gzipPath = gzipPath
        self.content = content
        self.gzip = gzip
        self.compressor = compressor
        self.tap = tap
    }

    static let batchBytes = 1 << 20

    mutating func append(_ chunk: ByteBuffer) async throws {
        if pending.readableBytes == 0, chunk.readableBytes >= Self.batchBytes {
            try await write(chunk)
            return
        }
        pending.writeImmutableBuffer(chunk)
        if pending.readableBytes >= Self.batchBytes { try await writePending() }
    }

    private mutating func writePending() async throws {
        let batch = pending
        pending.clear()
        try await write(batch)
    }

    private mutating func write(_ chunk: ByteBuffer) async throws {
        guard chunk.readableBytes > 0 else { return }
        guard let tap else { return try await store(chunk) }
        // The index takes the same batch on another thread meanwhile: a large upload's block
        // index costs as much CPU as its gzip variant.
        async let indexed: Void = tap.append(chunk)
        try await store(chunk)
        await indexed
    }

    /// Hashes, writes and compresses one batch.
    private mutating func store(_ chunk: ByteBuffer) async throws {
        chunk.withUnsafeReadableBytes { bytes in
            sha256.update(bufferPointer: bytes)
            md5.update(bufferPointer: bytes)
        }
        try await content.write(chunk, at: size)
        size += Int64(chunk.readableBytes)
        try await compress(chunk, finish: false)
    }

    /// Finishes both files, makes them durable and moves them to their content-addressed names.
    /// The gzip variant is dropped when it does not save enough.
    mutating func commit(verify: (BlobRecord) throws -> Void) async throws -> BlobRecord {
        try await writePending()
        try await compress(ByteBuffer(), finish: true)
        let sha256 = self.sha256.finalize().hexString
        let md5 = self.md5.finalize().hexString
        let keepGzip = compressor != nil && Double(gzipSize) <= Double(size) * (1 - store.configuration.gzipMinimumSavings) && size > 0
        let gzipRecord = keepGzip ? BlobRecord.GzipVariant(sha256: gzipSHA256.finalize().hexString, size: gzipSize) : nil
        let record = BlobRecord(sha256: sha256, md5: md5, size: size, gzip: gzipRecord)
        try verify(record)
        // Held from here: collection removes no held blob, so a stored copy found below stays.
        store.holds.hold(sha256)
        do {
            return try await install(record)
        } catch {
            store.holds.release(sha256)
            throw error
        }
    }

    /// Makes both files durable and gives them their content-addressed names; returns the record
    /// of what the store now holds under them.
    ///
    /// When the content is stored already, nothing is replaced: its gzip variant keeps the bytes
    /// its immutable URL (`/blobs/{sha256}.gz`) was first served with, even if this writer made
    /// other ones (after a `gzip.level` change), and the record describes the stored variant.
    private func install(_ record: BlobRecord) async throws -> BlobRecord {
        let finalPath = store.path(forSHA256: record.sha256)
        if try await store.fileSystem.info(forFileAt: finalPath) != nil {
            await discard()
            return BlobRecord(sha256: record.sha256, md5: record.md5, size: record.size, gzip: try await storedGzip(of: record.sha256))
        }
        let keepGzip = record.gzip != nil
        try await content.synchronize()
        content.close()
        if keepGzip { try await gzip.synchronize() }
        gzip.close()

        let directory = finalPath.removingLastComponent()
        if try await store.fileSystem.info(forFileAt: directory) == nil {
            // Made durable in blobs/ at once: the new folder's own entry must be before the blob in it is.
            try store.makeFolder(directory)
        }
        if keepGzip {
            // The variant first: a blob whose content exists is taken as complete. A variant
            // left without its content (a crash between the two renames) is replaced, as
            // nothing served it.
            try store.rename(gzipPath, to: store.gzipPath(forSHA256: record.sha256))
        } else {
            store.remove(gzipPath)
        }
        try store.rename(contentPath, to: finalPath)
        try await Self.synchronizeDirectory(directory, fileSystem: store.fileSystem)
        return record
    }

    /// The gzip variant stored beside the content `sha256`, read from disk; `nil` when it has none.
    private func storedGzip(of sha256: String) async throws -> BlobRecord.GzipVariant? {
        let path = store.gzipPath(forSHA256: sha256)
        guard try await store.fileSystem.info(forFileAt: path) != nil else { return nil }
        return try await store.fileSystem.withFileHandle(forReadingAt: path) { handle in
            var digest = SHA256()
            var size: Int64 = 0
            for try await chunk in handle.readChunks(chunkLength: .kibibytes(256)) {
                chunk.withUnsafeReadableBytes { digest.update(bufferPointer: $0) }
                size += Int64(chunk.readableBytes)
            }
            return BlobRecord.GzipVariant(sha256: digest.finalize().hexString, size: size)
        }
    }

    /// Closes and removes the temporary files. Here, not on NIO's thread pool, which a
    /// cancelled task (a server stopping mid-scan) does not reach: a handle dropped open is a
    /// crash.
    func discard() async {
        Self.closeNow(content, in: store)
        Self.closeNow(gzip, in: store)
    }

    /// Closes `file` on this thread, if it is still open, and removes it: what every way out of
    /// a writer does, cancelled or not.
    private static func closeNow(_ file: StoreFile, in store: BlobStore) {
        file.close()
        store.remove(file.path)
    }

    private mutating func compress(_ input: ByteBuffer, finish: Bool) async throws {
        guard let compressor else { return }
        var produced = ByteBuffer()
        try input.withUnsafeReadableBytes { bytes in
            try compressor.compress(bytes, finish: finish) { produced.writeBytes($0) }
        }
        guard produced.readableBytes > 0 else { return }
        produced.withUnsafeReadableBytes { gzipSHA256.update(bufferPointer: $0) }
        try await gzip.write(produced, at: gzipSize)
        gzipSize += Int64(produced.readableBytes)
    }

    /// Makes a rename in `directory` durable.
    static func synchronizeDirectory(_ directory: FilePath, fileSystem: FileSystem) async throws {
        try await fileSystem.withDirectoryHandle(atPath: directory) { handle in
            try await handle.synchronize()
        }
    }
}
