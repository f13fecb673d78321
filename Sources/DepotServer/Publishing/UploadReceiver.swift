import DepotAPI
import DepotHTTP
import DepotStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import _NIOFileSystem

/// Streams a request body into the blob store under the upload limit, checking the digests the
/// client sent: the one upload path of `PUT /v1/files/…` and `PUT /v1/blobs/…`.
struct UploadReceiver: Sendable {
    let store: BlobStore
    let configuration: PublishConfiguration

    /// What ``receive(_:context:label:sha256:)`` did with an upload.
    enum Upload {
        /// The body is stored, and held: the caller releases it. With its block index when
        /// one was made as it arrived (`indexing`); the caller removes the tap's file.
        case stored(BlobRecord, index: BlockIndexTap?)
        /// The answer to send instead (413).
        case refused(Response)
    }

    /// Receives the body, checking that its SHA-256 is `sha256` when given. A body over the
    /// limit gets 413 and the connection closed; a digest mismatch 400; a full disk 507.
    /// `label` names the upload in the log.
    func receive(
        _ request: Request,
        context: DepotRequestContext,
        label: String,
        sha256: String? = nil,
        indexing: Bool = false
    ) async throws -> Upload {
        let length = request.headers[.contentLength].flatMap(Int64.init)
        if let length, length > configuration.maxUploadBytes {
            return .refused(tooLarge(context: context))
        }
        var expectation: DigestExpectation
        do {
            expectation = try DigestExpectation(headers: request.headers)
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        if let sha256 {
            if let sent = expectation.sha256, sent != sha256 {
                throw HTTPError(.badRequest, message: "Repr-Digest names other content than the URL")
            }
            expectation.sha256 = sha256
        }
        // A body whose announced length earns a block index is indexed as it arrives; without
        // a tap (its file could not be made), the index is made from the stored file later.
        let tap =
            indexing && configuration.deltas.indexesBlocks(ofSize: length ?? 0)
            ? try? BlockIndexTap(in: store, blockSize: configuration.deltas.blockSize)
            : nil
        do {
            let blob = try await store.ingest(LimitedBody(base: request.body, limit: configuration.maxUploadBytes), indexing: tap) {
                try expectation.verify($0)
            }
            return .stored(blob, index: tap)
        } catch {
            tap?.removePacked()
            switch error {
            case is UploadTooLarge:
                return .refused(tooLarge(context: context))
            case let error as DigestError:
                throw HTTPError(.badRequest, message: error.description)
            case let error as StoreError where error.code == .noSpace:
                throw Self.diskFull(refusing: "this file", label: label, context: context)
            default:
                throw error
            }
        }
    }

    /// What ``receiveBatch(_:context:)`` did with a batch.
    enum Batch {
        /// Every blob is stored, and held: the caller releases them.
        case stored([BlobRecord])
        /// The answer to send instead (413).
        case refused(Response)
    }

    /// Receives a batch of small blobs (`POST /v1/blobs`, ``BlobBatch``): each checked against
    /// its SHA-256, all stored with one group commit (``BlobBatchWriter``), or none. A body over
    /// `publish.maxBatchBytes`, or a blob over `publish.maxUploadBytes`, gets 413 (the limit of
    /// one upload holds for each blob of a batch); a malformed body, a blob over
    /// `publish.maxBatchBlobBytes`, more than `publish.maxBatchBlobs` blobs or a digest mismatch
    /// 400; a full disk 507.
    func receiveBatch(_ request: Request, context: DepotRequestContext) async throws -> Batch {
        guard request.headers[.contentType]?.split(separator: ";").first.map({ $0.filter { $0 != " " } }) == BlobBatch.mediaType else {
            throw HTTPError(.unsupportedMediaType, message: "A batch of blobs is sent as \(BlobBatch.mediaType)")
        }
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > configuration.maxBatchBytes {
            return .refused(tooLarge(context: context, limit: configuration.maxBatchBytes, of: "publish.maxBatchBytes"))
        }
        let memberLimit = Int(min(Int64(configuration.maxBatchBlobBytes), configuration.maxUploadBytes))
        var parser = BlobBatch.Parser(maximumMemberBytes: memberLimit)
        var writer = try BlobBatchWriter(store: store)
        var pending: [(sha256: String, bytes: [UInt8])] = []
        var pendingBytes = 0
        var count = 0
        do {
            for try await chunk in LimitedBody(base: request.body, limit: configuration.maxBatchBytes) {
                for member in try chunk.withUnsafeReadableBytes({ try parser.feed($0) }) {
                    count += 1
                    guard count <= configuration.maxBatchBlobs else {
                        throw HTTPError(.badRequest, message: "A batch may hold at most \(configuration.maxBatchBlobs) blobs (publish.maxBatchBlobs)")
                    }
                    pending.append((member.sha256, member.bytes))
                    pendingBytes += member.bytes.count
                }
                // Written a few MiB at a time: memory stays flat whatever the batch's size.
                if pendingBytes >= Self.batchWriteBytes {
                    try await writer.write(pending)
                    pending.removeAll(keepingCapacity: true)
                    pendingBytes = 0
                }
            }
            try parser.finish()
            try await writer.write(pending)
        } catch {
            writer.discard()
            if error is UploadTooLarge {
                return .refused(tooLarge(context: context, limit: configuration.maxBatchBytes, of: "publish.maxBatchBytes"))
            }
            if let error = error as? BlobBatch.MemberTooLarge {
                guard Int64(error.size) <= configuration.maxUploadBytes else { return .refused(tooLarge(context: context)) }
                throw HTTPError(
                    .badRequest,
                    message:
                        "A blob of a batch may have at most \(configuration.maxBatchBlobBytes) bytes (publish.maxBatchBlobBytes); upload larger ones alone"
                )
            }
            throw Self.httpError(error, context: context)
        }
        do {
            return .stored(try await writer.commit())
        } catch {
            throw Self.httpError(error, context: context)
        }
    }

    static let batchWriteBytes = 4 << 20

    /// The answer to a batch's failure: 400 for what the client sent, 507 for a full disk.
    private static func httpError(_ error: any Error, context: DepotRequestContext) -> any Error {
        switch error {
        case let error as BlobBatch.FormatError: return HTTPError(.badRequest, message: "The batch is malformed: \(error.description)")
        case let error as BlobBatchMismatch: return HTTPError(.badRequest, message: error.description)
        case let error as StoreError where error.code == .noSpace: return diskFull(refusing: "these files", label: "a batch", context: context)
        default: return error
        }
    }

    /// 507, for an upload or a batch the disk has no room for; logged.
    private static func diskFull(refusing what: String, label: String, context: DepotRequestContext) -> HTTPError {
        context.logger.error("Upload refused: the disk is full", metadata: ["upload": "\(label)"])
        return HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "The server has no space left to store \(what)")
    }

    /// 413, then the connection is closed so the rest of the upload is never read.
    private func tooLarge(context: DepotRequestContext, limit: Int64? = nil, of key: String = "publish.maxUploadBytes") -> Response {
        let message = "The upload is larger than the limit of \(limit ?? configuration.maxUploadBytes) bytes (\(key))"
        let body = ByteBuffer(string: #"{"error":{"message":"\#(message)"}}"#)
        let channel = context.channel
        return Response(
            status: .contentTooLarge,
            headers: [.contentType: "application/json; charset=utf-8", .connection: "close"],
            body: ResponseBody(contentLength: body.readableBytes) { writer in
                try await writer.write(body)
                try await writer.finish(nil)
                channel.close(mode: .all, promise: nil)
            }
        )
    }
}
