import DepotAPI
import DepotTestFixtures
import Foundation

extension Fixture {
    /// The `Content-Type` of a `POST /v1/blobs` batch.
    package static let blobBatchContentType = ("Content-Type", BlobBatch.mediaType)

    /// The body of a `POST /v1/blobs` batch of `members`.
    package static func blobBatch(_ members: [(sha256: String, bytes: Data)]) -> [UInt8] {
        members.flatMap { BlobBatch.header(sha256: $0.sha256, size: $0.bytes.count) + Array($0.bytes) }
    }

    /// A batch member: `text`'s bytes and their SHA-256.
    package static func batchMember(_ text: String) -> (sha256: String, bytes: Data) {
        let bytes = Data(text.utf8)
        return (sha256(bytes), bytes)
    }
}
