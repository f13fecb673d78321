import Crypto
import DepotHTTP
import Foundation
import NIOPosix

/// The SHA-256 of every file of a tree: from the index (``PublishIndex/digest(of:)``) for a file
/// whose status is unchanged, else read and hashed. Reading runs on NIO's thread pool, a batch
/// of files per hop, so that 100,000 small files cost 100,000 reads and not 100,000 task
/// switches.
public enum TreeDigests {
    /// A file of the tree and its content.
    public struct Digest: Sendable {
        public var file: LocalFile
        public var sha256: String
        /// What to record in the next index for it: `nil` when its status is too recent.
        public var source: PublishIndex.Source?
    }

    /// The digests of `files`, in their order. `started` is when the publish began
    /// (nanoseconds since 1970), which decides whether a status can be trusted next time.
    ///
    /// - Throws: ``PublisherError`` for a file that cannot be read.
    public static func digests(
        of files: [LocalFile],
        index: PublishIndex?,
        started: Int64,
        threadPool: NIOThreadPool = .singleton
    ) async throws
        -> [Digest]
    {
        var digests: [Digest?] = files.map { file in
            index?.digest(of: file).map {
                Digest(file: file, sha256: $0, source: PublishIndex.source(for: file, publishStarted: started))
            }
        }
        let unread = digests.indices.filter { digests[$0] == nil }
        let batches = stride(from: 0, to: unread.count, by: batchSize).map { Array(unread[$0..<min($0 + batchSize, unread.count)]) }
        try await withThrowingTaskGroup(of: [(Int, Digest)].self) { group in
            var next = 0
            func addBatch() {
                let batch = batches[next]
                next += 1
                group.addTask {
                    try await threadPool.runIfActive {
                        try batch.map { position in
                            let file = files[position]
                            let sha256 = try sha256(ofFileAt: file.file)
                            return (
                                position,
                                Digest(file: file, sha256: sha256, source: PublishIndex.source(for: file, publishStarted: started))
                            )
                        }
                    }
                }
            }
            for _ in 0..<min(width, batches.count) { addBatch() }
            while let done = try await group.next() {
                for (position, digest) in done { digests[position] = digest }
                if next < batches.count { addBatch() }
            }
        }
        return digests.map { $0! }
    }

    /// Files hashed per trip to the thread pool.
    static let batchSize = 64
    /// Batches hashed at once: one per core.
    static let width = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The SHA-256 (hex) of the file at `path`, read with blocking calls.
    static func sha256(ofFileAt path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PublisherError("cannot read \(path)") }
        defer { close(descriptor) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw PublisherError("cannot read \(path)") }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return Hex.string(hasher.finalize())
    }
}
