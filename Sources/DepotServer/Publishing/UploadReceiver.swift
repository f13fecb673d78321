import DepotHTTP
import DepotStore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Streams a request body into the blob store under the upload limit, checking the digests the
/// client sent: the one upload path of `PUT /v1/files/…` and `PUT /v1/blobs/…`.
struct UploadReceiver: Sendable {
    let store: BlobStore
    let configuration: PublishConfiguration

    /// What ``receive(_:context:label:sha256:)`` did with an upload.
    enum Upload {
        /// The body is stored, and held: the caller releases it.
        case stored(BlobRecord)
        /// The answer to send instead (413).
        case refused(Response)
    }

    /// Receives the body, checking that its SHA-256 is `sha256` when given. A body over the
    /// limit gets 413 and the connection closed; a digest mismatch 400; a full disk 507.
    /// `label` names the upload in the log.
    func receive(_ request: Request, context: DepotRequestContext, label: String, sha256: String? = nil) async throws -> Upload {
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > configuration.maxUploadBytes {
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
        do {
            return .stored(
                try await store.ingest(LimitedBody(base: request.body, limit: configuration.maxUploadBytes)) { try expectation.verify($0) }
            )
        } catch is UploadTooLarge {
            return .refused(tooLarge(context: context))
        } catch let error as DigestError {
            throw HTTPError(.badRequest, message: error.description)
        } catch let error as StoreError where error.code == .noSpace {
            context.logger.error("Upload refused: the disk is full", metadata: ["upload": "\(label)"])
            throw HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "The server has no space left to store this file")
        }
    }

    /// 413, then the connection is closed so the rest of the upload is never read.
    private func tooLarge(context: DepotRequestContext) -> Response {
        let message = "The upload is larger than the limit of \(configuration.maxUploadBytes) bytes"
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
