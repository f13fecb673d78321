import CompressNIO
import Crypto
import NIOCore
import _NIOFileSystem

/// One blob being written: two temporary files (content and gzip variant) and their digests.
/// Owned by one task from `start` to `commit` or `discard`.
struct BlobWriter {
    private let store: BlobStore
    private let contentPath: FilePath
    private let gzipPath: FilePath
    private let content: WriteFileHandle
    private let gzip: WriteFileHandle
    private let compressor: ZlibCompressor
    private var window: ByteBuffer
    /// Uploaded bytes not yet hashed, compressed and written: a request body arrives in
    /// chunks of a few KiB, and each file write is a trip to NIO's thread pool, so they are
    /// taken in batches of ``batchBytes``.
    private var pending = ByteBuffer()
    private var sha256 = SHA256()
    private var md5 = Insecure.MD5()
    private var gzipSHA256 = SHA256()
    private var size: Int64 = 0
    private var gzipSize: Int64 = 0

    static func start(in store: BlobStore) async throws -> BlobWriter {
        let name = String(UInt64.random(in: .min ... .max), radix: 36)
        let contentPath = store.temporaryDirectory.appending("\(name).blob")
        let gzipPath = store.temporaryDirectory.appending("\(name).gz")
        let options = OpenOptions.Write(existingFile: .none, newFile: .init(transactionalCreation: false))
        do {
            let content = try await store.fileSystem.openFile(forWritingAt: contentPath, options: options)
            let gzip: WriteFileHandle
            do {
                gzip = try await store.fileSystem.openFile(forWritingAt: gzipPath, options: options)
            } catch {
                try? await content.close()
                _ = try? await store.fileSystem.removeItem(at: contentPath)
                throw error
            }
            let level = Int32(min(9, max(1, store.configuration.gzipLevel)))
            return BlobWriter(
                store: store,
                contentPath: contentPath,
                gzipPath: gzipPath,
                content: content,
                gzip: gzip,
                compressor: try ZlibCompressor(algorithm: .gzip, configuration: .init(compressionLevel: level)),
                window: ByteBuffer()
            )
        } catch {
            throw BlobStore.storeError(error)
        }
    }

    private init(
        store: BlobStore,
        contentPath: FilePath,
        gzipPath: FilePath,
        content: WriteFileHandle,
        gzip: WriteFileHandle,
        compressor: ZlibCompressor,
        window: ByteBuffer
    ) {
        self.store = store
        self.contentPath = contentPath
        self.gzipPath = gzipPath
        self.content = content
        self.gzip = gzip
        self.compressor = compressor
        self.window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
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
        chunk.withUnsafeReadableBytes { bytes in
            sha256.update(bufferPointer: bytes)
            md5.update(bufferPointer: bytes)
        }
        _ = try await content.write(contentsOf: chunk.readableBytesView, toAbsoluteOffset: size)
        try await Self.startWriteback(content, offset: size, count: Int64(chunk.readableBytes))
        size += Int64(chunk.readableBytes)
        var input = chunk
        try await compress(&input, flush: .no)
    }

    /// Finishes both files, makes them durable and moves them to their content-addressed names.
    /// The gzip variant is dropped when it does not save enough.
    mutating func commit(verify: (BlobRecord) throws -> Void) async throws -> BlobRecord {
        try await writePending()
        var empty = ByteBuffer()
        try await compress(&empty, flush: .finish)
        let sha256 = self.sha256.finalize().hexString
        let md5 = self.md5.finalize().hexString
        let keepGzip = Double(gzipSize) <= Double(size) * (1 - store.configuration.gzipMinimumSavings) && size > 0
        let gzipRecord = keepGzip ? BlobRecord.GzipVariant(sha256: gzipSHA256.finalize().hexString, size: gzipSize) : nil
        let record = BlobRecord(sha256: sha256, md5: md5, size: size, gzip: gzipRecord)
        try verify(record)
        store.holds.hold(sha256)
        do {
            try await install(sha256: sha256, keepGzip: keepGzip)
        } catch {
            store.holds.release(sha256)
            throw error
        }
        return record
    }

    /// Makes both files durable and gives them their content-addressed names.
    private func install(sha256: String, keepGzip: Bool) async throws {
        try await content.synchronize()
        try await content.close()
        if keepGzip { try await gzip.synchronize() }
        try await gzip.close()

        let finalPath = store.path(forSHA256: sha256)
        let directory = finalPath.removingLastComponent()
        try await store.fileSystem.createDirectory(at: directory, withIntermediateDirectories: true)
        if keepGzip {
            // The variant first: a blob whose content exists is taken as complete.
            try await Self.rename(gzipPath, to: store.gzipPath(forSHA256: sha256))
        } else {
            _ = try? await store.fileSystem.removeItem(at: gzipPath)
        }
        try await Self.rename(contentPath, to: finalPath)
        try await Self.synchronizeDirectory(directory, fileSystem: store.fileSystem)
    }

    /// Closes and removes the temporary files.
    func discard() async {
        try? await content.close()
        try? await gzip.close()
        _ = try? await store.fileSystem.removeItem(at: contentPath)
        _ = try? await store.fileSystem.removeItem(at: gzipPath)
    }

    private mutating func compress(_ input: inout ByteBuffer, flush: CompressNIOFlush) async throws {
        var produced = ByteBuffer()
        try input.compressStream(with: compressor, window: &window, flush: flush) { output in
            produced.writeImmutableBuffer(output)
        }
        guard produced.readableBytes > 0 else { return }
        produced.withUnsafeReadableBytes { gzipSHA256.update(bufferPointer: $0) }
        _ = try await gzip.write(contentsOf: produced.readableBytesView, toAbsoluteOffset: gzipSize)
        try await Self.startWriteback(gzip, offset: gzipSize, count: Int64(produced.readableBytes))
        gzipSize += Int64(produced.readableBytes)
    }

    /// Starts writing a batch to disk while the next one is made: `install`'s `fsync(2)` then
    /// waits for the last batches only, instead of the whole file.
    private static func startWriteback(_ handle: WriteFileHandle, offset: Int64, count: Int64) async throws {
        try await handle.withUnsafeDescriptor { SystemStartWriteback($0.rawValue, offset: offset, count: count) }
    }

    /// `rename(2)`: atomic within one file system, and replaces an existing file of the same
    /// content-addressed name, which holds the same bytes.
    private static func rename(_ source: FilePath, to destination: FilePath) async throws {
        let result = source.withPlatformString { from in
            destination.withPlatformString { to in
                SystemRename(from, to)
            }
        }
        guard result == 0 else {
            throw StoreError(.io, "Cannot rename \(source) to \(destination): errno \(SystemErrno())")
        }
    }

    /// Makes a rename in `directory` durable.
    static func synchronizeDirectory(_ directory: FilePath, fileSystem: FileSystem) async throws {
        try await fileSystem.withDirectoryHandle(atPath: directory) { handle in
            try await handle.synchronize()
        }
    }
}
