import DepotAPI
import Foundation

/// How `depot publish` uploads content the server lacks: each large file alone (streamed, with
/// its progress bar), the small ones together in batches (`POST /v1/blobs`, ``BlobBatch``), so
/// that 10,000 small files cost a few requests and a few group commits on the server, not
/// 10,000 of each.
public enum UploadBatches {
    /// Files of at least this many bytes are uploaded alone. The server's
    /// `publish.maxBatchBlobBytes` default is the same.
    public static let largeFileBytes: Int64 = 1 << 20
    /// A batch's body is at most about this many bytes…
    public static let maximumBatchBytes: Int64 = 8 << 20
    /// …and holds at most this many blobs (the server's `publish.maxBatchBlobs` default is
    /// 10,000).
    public static let maximumBatchBlobs = 4_096

    /// `files` (each once) split into those sent alone and batches of the rest, in order.
    public static func plan(_ files: [TreeDigests.Digest]) -> (alone: [TreeDigests.Digest], batches: [[TreeDigests.Digest]]) {
        var alone: [TreeDigests.Digest] = []
        var batches: [[TreeDigests.Digest]] = []
        var batch: [TreeDigests.Digest] = []
        var bytes: Int64 = 0
        for file in files {
            guard file.file.status.size < largeFileBytes else {
                alone.append(file)
                continue
            }
            if !batch.isEmpty, batch.count == maximumBatchBlobs || bytes + file.file.status.size > maximumBatchBytes {
                batches.append(batch)
                batch = []
                bytes = 0
            }
            batch.append(file)
            bytes += file.file.status.size
        }
        if !batch.isEmpty { batches.append(batch) }
        return (alone, batches)
    }

    /// The body of a batch: each file read whole, after its header. Blocking: call it from a
    /// thread pool.
    ///
    /// - Throws: ``PublisherError`` for a file that cannot be read.
    public static func body(of batch: [TreeDigests.Digest]) throws -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(batch.reduce(0) { $0 + Int($1.file.status.size) + 90 })
        for file in batch {
            guard let bytes = FileManager.default.contents(atPath: file.file.file) else { throw PublisherError("cannot read \(file.file.file)") }
            body += BlobBatch.header(sha256: file.sha256, size: bytes.count)
            body += bytes
        }
        return body
    }
}
