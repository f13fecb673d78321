import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `PUT /v1/files/{path}` publishes, `DELETE /v1/files/{path}` unpublishes; both need a publish
/// token.
///
/// A publish streams the body into the blob store while its SHA-256, MD5 and gzip variant are
/// computed, checks any digest the client sent, makes the patches from earlier versions, and
/// then commits a release of the default channel's files plus this one, in one catalog
/// transaction. Until that commit nobody can see any of
/// it; a failure before it (a client gone, a digest mismatch, a full disk) leaves nothing behind.
struct PublishController: Sendable {
    let catalog: Catalog
    let store: BlobStore
    let content: PublishedContent
    let metrics: DepotMetrics
    let configuration: PublishConfiguration
    let authenticator: BearerAuthenticator
    /// Makes the patches a new version lists; `nil` when deltas are off.
    let patches: PatchMaker?

    init(
        catalog: Catalog,
        store: BlobStore,
        content: PublishedContent,
        metrics: DepotMetrics,
        configuration: PublishConfiguration,
        patches: PatchMaker? = nil,
        acceptsBasic: Bool = false
    ) {
        self.catalog = catalog
        self.store = store
        self.content = content
        self.metrics = metrics
        self.configuration = configuration
        self.patches = patches
        self.authenticator = BearerAuthenticator(tokens: configuration.tokens, acceptsBasic: acceptsBasic)
    }

    static let prefix = "/v1/files"

    /// How the server writes JSON: replies, and the channel documents it signs.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.put("/v1/files/**", use: publish)
        router.delete("/v1/files/**", use: unpublish)
        // No path at all: the handlers answer 400.
        router.put("/v1/files", use: publish)
        router.delete("/v1/files", use: unpublish)
        for method in [HTTPRequest.Method.get, .head, .post, .patch, .options] {
            router.on("/v1/files/**", method: method) { _, _ -> Response in
                throw HTTPError(.methodNotAllowed, headers: [.allow: "PUT, DELETE"], message: "Only PUT and DELETE are allowed here")
            }
        }
    }

    /// The reply to a publish.
    struct PublishReply: Encodable {
        let path: String
        let version: Int64
        let size: Int64
        let sha256: String
        let md5: String
        let etag: String
        let gzipSize: Int64?
        let unchanged: Bool
        /// The default channel's serial after the publish.
        let serial: Int64
    }

    @Sendable func publish(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let started = ContinuousClock.now
        let path = try LogicalPath.parse(request.uri.path, prefix: Self.prefix, maxLength: configuration.maxPathLength)
        let blob: BlobRecord
        switch try await receive(request, context: context, label: path) {
        case .stored(let stored): blob = stored
        case .refused(let response): return response
        }
        defer { store.release(blob.sha256) }
        let contentType = Self.contentType(of: request, path: path)
        await patches?.makePatches(path: path, target: blob)
        let result = try await refusingBadChanges {
            try await catalog.publish(.init(path: path, blob: blob, contentType: contentType, now: .now(), keepVersions: configuration.keepVersions))
        }
        if !result.unchanged {
            await patches?.makeDocumentPatches(channel: ChannelName.default)
            try await content.changed(paths: [result.version.path], channel: ChannelName.default)
        }
        metrics.recordPublish(duration: ContinuousClock.now - started, unchanged: result.unchanged)
        let version = result.version
        context.logger.info(
            result.unchanged ? "Publish unchanged" : "Published",
            metadata: ["path": "\(version.path)", "version": "\(version.version)", "sha256": "\(version.sha256)"]
        )
        let reply = PublishReply(
            path: version.path,
            version: version.version,
            size: version.size,
            sha256: version.sha256,
            md5: version.md5,
            etag: EntityTag(opaqueTag: version.sha256)!.description,
            gzipSize: version.gzipSize,
            unchanged: result.unchanged,
            serial: result.channelSerial
        )
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if !result.unchanged { headers[.location] = "/files/" + RequestPath.encode(version.path) }
        return Response(
            status: result.unchanged ? .ok : .created,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: try Self.encoder.encode(reply)))
        )
    }

    @Sendable func unpublish(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let path = try LogicalPath.parse(request.uri.path, prefix: Self.prefix, maxLength: configuration.maxPathLength)
        guard let removed = try await catalog.unpublish(path: path, now: .now()) else {
            throw HTTPError(.notFound, message: "\(path) is not published")
        }
        await patches?.makeDocumentPatches(channel: ChannelName.default)
        try await content.changed(paths: [removed], channel: ChannelName.default)
        context.logger.info("Unpublished", metadata: ["path": "\(path)"])
        return Response(status: .noContent)
    }

    /// What ``receive(_:context:label:sha256:)`` did with an upload.
    enum Upload {
        /// The body is stored, and held: the caller releases it.
        case stored(BlobRecord)
        /// The answer to send instead (413).
        case refused(Response)
    }

    /// Streams the request body into the store under the upload limit, checking the digests the
    /// client sent and, when given, that its SHA-256 is `sha256`. A body over the limit gets
    /// 413 and the connection closed; a digest mismatch 400; a full disk 507. `label` names the
    /// upload in the log.
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

    /// The request's `Content-Type`, unless it is absent or the form type curl sends by default
    /// with `--data-binary`: then the type that goes with the file's extension.
    static func contentType(of request: Request, path: String) -> String {
        guard let sent = request.headers[.contentType], !sent.hasPrefix("application/x-www-form-urlencoded") else {
            return MediaType.forPath(path)
        }
        return sent
    }

    /// 413, then the connection is closed so the rest of the upload is never read.
    func tooLarge(context: DepotRequestContext) -> Response {
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
