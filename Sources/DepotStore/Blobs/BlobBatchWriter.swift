import Crypto
import DepotDelta
import DepotHTTP
import NIOPosix
import _NIOFileSystem

/// Many small blobs stored with one group commit: each is hashed, compressed and written to
/// `tmp/xx/` as it arrives, without an fsync of its own; at the end one `syncfs(2)` makes them all
/// durable, they are renamed into place, and a second `syncfs(2)` makes the renames durable.
/// Two journal commits for the batch replace two fsyncs per blob (elsewhere than Linux, each
/// file and folder is fsynced, as ``BlobWriter`` does one by one).
///
/// The store's promise holds as for a single blob: a blob appears under its name only complete
/// and durable, and a crash leaves at most files in `tmp/`, which the next start removes. The
/// work runs on NIO's thread pool, a group of blobs per trip.
public struct BlobBatchWriter: ~Copyable {
    private let store: BlobStore
    private let compressor: GzipDeflater
    private var written: [Written] = []
    /// The temporary files' names: this, a dash and a counter (one random draw a batch).
    private let namePrefix = String(UInt64.random(in: .min ... .max), radix: 36)

    /// A blob written to `tmp/`, not yet durable nor named.
    private struct Written: Sendable {
        let record: BlobRecord
        let content: FilePath
        /// Nil when the variant does not save enough to be kept.
        let gzip: FilePath?
    }

    public init(store: BlobStore) throws {
        self.store = store
        compressor = try GzipDeflater(level: Int32(min(9, max(1, store.configuration.gzipLevel))))
    }

    /// Hashes, compresses and writes `members` to temporary files, checking each against its
    /// SHA-256 (``BlobBatchMismatch`` names the first that differs; nothing is kept then).
    public mutating func write(_ members: [(sha256: String, bytes: [UInt8])]) async throws {
        let store = store
        let compressor = UncheckedDeflater(deflater: compressor)
        let names = (written.count..<written.count + members.count).map { "\(namePrefix)-\($0)" }
        let done = try await NIOThreadPool.singleton.runIfActive { () throws -> [Written] in
            var done: [Written] = []
            do {
                for (member, name) in zip(members, names) {
                    done.append(
                        try Self.writeTemporary(member.bytes, claimed: member.sha256, name: name, store: store, compressor: compressor.deflater)
                    )
                }
            } catch {
                Self.remove(done, in: store)
                throw error
            }
            return done
        }
        written += done
    }

    /// Makes every blob written durable and gives it its name; returns their records, each
    /// blob *held* (see ``BlobStore/ingest(_:compresses:indexing:verify:)``): the caller records them,
    /// then releases them. Content the store holds already is left as it is, and its record
    /// describes what is stored.
    public consuming func commit() async throws -> [BlobRecord] {
        let store = store
        let written = written
        return try await NIOThreadPool.singleton.runIfActive {
            do {
                try Self.synchronize(files: written, in: store)
            } catch {
                Self.remove(written, in: store)
                throw error
            }
            var records: [BlobRecord] = []
            var folders: Set<FilePath> = []
            var newFolder = false
            do {
                for (position, blob) in written.enumerated() {
                    let sha256 = blob.record.sha256
                    store.holds.hold(sha256)
                    do {
                        let target = store.path(forSHA256: sha256)
                        if target.withPlatformString(SystemFileExists) {
                            Self.remove([blob], in: store)
                            records.append(try Self.storedRecord(blob.record, store: store))
                            continue
                        }
                        let folder = target.removingLastComponent()
                        if !folder.withPlatformString(SystemFileExists) {
                            try store.makeFolder(folder)
                            newFolder = true
                        }
                        if let gzip = blob.gzip {
                            // The variant first: a blob whose content exists is taken as complete.
                            try store.rename(gzip, to: store.gzipPath(forSHA256: sha256))
                        }
                        try store.rename(blob.content, to: target)
                        folders.insert(folder)
                        records.append(blob.record)
                    } catch {
                        store.holds.release(sha256)
                        Self.remove(Array(written[position...]), in: store)
                        throw error
                    }
                }
                if newFolder { folders.insert(store.directory) }
                try Self.synchronize(folders: folders, in: store)
            } catch {
                for record in records { store.holds.release(record.sha256) }
                throw error
            }
            return records
        }
    }

    /// Removes the temporary files of what was written and not committed.
    public consuming func discard() {
        Self.remove(written, in: store)
    }

    private static func writeTemporary(_ bytes: [UInt8], claimed: String, name: String, store: BlobStore, compressor: GzipDeflater) throws -> Written
    {
        let (sha256, md5) = bytes.withUnsafeBytes { (Hex.string(SHA256.hash(data: $0)), Hex.string(Insecure.MD5.hash(data: $0))) }
        guard sha256 == claimed else { throw BlobBatchMismatch(claimed: claimed, actual: sha256) }
        var compressed: [UInt8] = []
        let savings = store.configuration.gzipMinimumSavings
        // Deflate only where a sample says it may save enough (random or compressed content
        // would cost it ~40 µs a KiB to find nothing).
        if !bytes.isEmpty, bytes.withUnsafeBytes({ CompressionSample.mayPay($0, minimumSavings: savings) }) {
            compressor.reset()
            try bytes.withUnsafeBytes { input in
                try compressor.compress(input, finish: true) { compressed.append(contentsOf: $0) }
            }
        }
        let keepsGzip = !compressed.isEmpty && Double(compressed.count) <= Double(bytes.count) * (1 - savings)
        // In `tmp/{first two hex digits}/`: thousands of files created in one folder cost ext4
        // several times more than spread over a few hundred (a search of the folder's block
        // group for each inode).
        let folder = store.temporaryDirectory.appending(String(sha256.prefix(2)))
        let content = folder.appending("\(name).blob")
        let gzip = keepsGzip ? folder.appending("\(name).gz") : nil
        do {
            // The shard folder is made with the file, when missing.
            try bytes.withUnsafeBytes { try BlockingFileWriter(descriptor: try store.createFile(content), path: content.string).write($0) }
            if let gzip {
                try compressed.withUnsafeBytes { try BlockingFileWriter(descriptor: try store.createFile(gzip), path: gzip.string).write($0) }
            }
        } catch {
            remove([Written(record: BlobRecord(sha256: sha256, md5: md5, size: 0, gzip: nil), content: content, gzip: gzip)], in: store)
            throw error
        }
        let variant = keepsGzip ? BlobRecord.GzipVariant(sha256: Hex.string(SHA256.hash(data: compressed)), size: Int64(compressed.count)) : nil
        return Written(record: BlobRecord(sha256: sha256, md5: md5, size: Int64(bytes.count), gzip: variant), content: content, gzip: gzip)
    }

    /// The record of content stored already: its gzip variant as stored, not as this batch made it.
    private static func storedRecord(_ record: BlobRecord, store: BlobStore) throws -> BlobRecord {
        let path = store.gzipPath(forSHA256: record.sha256)
        guard path.withPlatformString(SystemFileExists) else {
            return BlobRecord(sha256: record.sha256, md5: record.md5, size: record.size, gzip: nil)
        }
        let bytes = try BlockingFileReader.contents(of: path.string, maximumSize: .max)
        let gzip = BlobRecord.GzipVariant(sha256: Hex.string(SHA256.hash(data: bytes)), size: Int64(bytes.count))
        return BlobRecord(sha256: record.sha256, md5: record.md5, size: record.size, gzip: gzip)
    }

    private static func remove(_ written: [Written], in store: BlobStore) {
        for blob in written {
            store.remove(blob.content)
            if let gzip = blob.gzip { store.remove(gzip) }
        }
    }

    /// Makes the temporary files of `written` durable (one `syncfs(2)` on Linux).
    private static func synchronize(files written: [Written], in store: BlobStore) throws {
        try store.synchronize(written.flatMap { [$0.content] + ($0.gzip.map { [$0] } ?? []) })
    }

    /// Makes the renames in `folders` durable (one `syncfs(2)` on Linux).
    private static func synchronize(folders: Set<FilePath>, in store: BlobStore) throws {
        try store.synchronize(Array(folders))
    }
}

/// A blob of a batch whose bytes do not have the SHA-256 its header names.
public struct BlobBatchMismatch: Error, CustomStringConvertible, Sendable {
    public let claimed: String
    public let actual: String

    public var description: String { "The blob sent as \(claimed) has the SHA-256 \(actual)" }
}

/// The deflater, handed to the thread pool: used by one trip at a time, as the writer is
/// owned by one task (`~Copyable`) and awaits each trip.
private struct UncheckedDeflater: @unchecked Sendable {
    let deflater: GzipDeflater
}
