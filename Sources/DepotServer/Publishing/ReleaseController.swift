import DepotAPI
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The publisher's release API; every route needs a token, with the scope it names
/// (``ScopedRoutes``): uploads and commits `publish` (a commit, to its channel), promote and
/// rollback `promote` for the channel, the lists `read`.
///
/// - `HEAD /v1/blobs/{sha256}`: 200 when the server holds that content, else 404.
/// - `PUT /v1/blobs/{sha256}`: stores the body, streamed and verified like a file publish, and
///   checked to have that SHA-256. Content the server holds already gets 200 without the body
///   being read (the connection is then closed).
/// - `POST /v1/blobs`: stores a batch of small blobs (``BlobBatch``), each checked against its
///   SHA-256, with one group commit.
/// - `POST /v1/releases`: commits a release of uploaded blobs (`CommitRequest`), all or
///   nothing.
/// - `GET /v1/releases`, `GET /v1/channels`: what there is.
/// - `POST /v1/channels/{name}/promote` (`{"release": "7"}`) and `POST
///   /v1/channels/{name}/rollback`: re-point a channel, with no upload.
///
/// An HTTP adapter over ``Publisher``; requests and replies are `DepotAPI`'s types.
struct ReleaseController: Sendable {
    let publisher: Publisher
    let uploads: UploadReceiver

    private var configuration: PublishConfiguration { publisher.configuration }

    /// Its routes, in the `/v1` group (behind the tokens' scopes).
    func addRoutes(to publishing: ScopedRoutes) {
        publishing.head("blobs/:sha256", requires: .publish, use: hasBlob)
        publishing.put("blobs/:sha256", requires: .publish, use: uploadBlob)
        publishing.post("blobs/missing", requires: .publish, use: missingBlobs)
        publishing.post("blobs", requires: .publish, use: uploadBatch)
        publishing.post("releases", requires: .publish, use: commit)
        publishing.get("releases", requires: .read, use: list)
        publishing.get("channels", requires: .read, use: channels)
        publishing.post("channels/:name/promote", requires: .promote, channel: .parameter("name"), use: promote)
        publishing.post("channels/:name/rollback", requires: .promote, channel: .parameter("name"), use: rollback)
    }

    @Sendable func hasBlob(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let sha256 = try Self.sha256(context)
        return Response(status: try await publisher.storedBlob(sha256) == nil ? .notFound : .ok)
    }

    /// `POST /v1/blobs/missing` with `{"sha256": [...]}`: which of those blobs the server lacks,
    /// in the order asked, as `{"missing": [...]}`. One request tells a publisher what to upload
    /// of a folder of any size.
    @Sendable func missingBlobs(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let body = try await request.body.collect(upTo: configuration.maxCommitBytes)
        guard let asked = try? APIJSON.decode(MissingBlobsRequest.self, from: body.readableBytesView) else {
            throw HTTPError(.badRequest, message: #"The body must be {"sha256": ["<lower-case hex SHA-256>", ...]}"#)
        }
        guard asked.sha256.count <= configuration.maxMissingHashes else {
            throw HTTPError(
                .contentTooLarge,
                message: "Ask about at most \(configuration.maxMissingHashes) hashes a request (publish.maxMissingHashes)"
            )
        }
        if let bad = asked.sha256.first(where: { !ContentAddress.isSHA256($0) }) {
            throw HTTPError(.badRequest, message: "\(bad.prefix(80)) is not a SHA-256 in lower-case hex")
        }
        return try Response.json(MissingBlobsReply(missing: try await publisher.missingBlobs(asked.sha256)))
    }

    @Sendable func uploadBlob(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let sha256 = try Self.sha256(context)
        if let record = try await publisher.storedBlob(sha256) {
            // Not reading a body that is on its way: the connection cannot carry another request.
            let unread = request.headers[.contentLength] != "0"
            return try Response.json(BlobReply(sha256: record.sha256, size: record.size, stored: false), close: unread)
        }
        let blob: BlobRecord
        let index: BlockIndexTap?
        switch try await uploads.receive(request, context: context, label: sha256, sha256: sha256, indexing: true) {
        case .stored(let stored, let tap): (blob, index) = (stored, tap)
        case .refused(let response): return response
        }
        defer {
            uploads.store.release(blob.sha256)
            index?.removePacked()
        }
        try await publisher.recordUpload(blob, index: index, logger: context.logger)
        return try Response.json(BlobReply(sha256: blob.sha256, size: blob.size, stored: true), status: .created)
    }

    /// `POST /v1/blobs` with a batch of small blobs (``BlobBatch``): stored all or none, with one
    /// group commit; 201 with `{"stored": n}`.
    @Sendable func uploadBatch(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let blobs: [BlobRecord]
        switch try await uploads.receiveBatch(request, context: context) {
        case .stored(let stored): blobs = stored
        case .refused(let response): return response
        }
        defer { for blob in blobs { uploads.store.release(blob.sha256) } }
        try await publisher.recordUploads(blobs, logger: context.logger)
        return try Response.json(BlobBatchReply(stored: blobs.count), status: .created)
    }

    /// Commits of at least this many files give freed memory back when done (``Heap``).
    static let largeCommit = 1000

    @Sendable func commit(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let (response, listed) = try await commitRelease(request, context: context, grant: grant)
        // Its body, decoded list and records were tens of megabytes for 100,000 files, all freed.
        if listed >= Self.largeCommit { Heap.returnFreedPages() }
        return response
    }

    /// The commit; returns the response and how many files the request listed.
    private func commitRelease(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> (Response, Int) {
        let body = try await request.body.collect(upTo: configuration.maxCommitBytes)
        let commit: CommitRequest
        do {
            commit = try APIJSON.decode(CommitRequest.self, from: body.readableBytesView)
        } catch {
            throw HTTPError(.badRequest, message: "The release is not the JSON expected: \(error)")
        }
        let permit = try grant.permit(.publish, channel: commit.channel ?? ChannelName.default)
        let reply = try await publisher.commit(commit, permit: permit, logger: context.logger)
        return (try Response.json(status: reply.created ? .created : .ok) { try reply.encode(into: &$0) }, commit.files?.count ?? 0)
    }

    @Sendable func list(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? 100
        return try Response.json(try await publisher.releases(limit: max(1, min(limit, 10_000))))
    }

    @Sendable func channels(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        try Response.json(try await publisher.channels())
    }

    @Sendable func promote(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let permit = try grant.permit(.promote, channel: context.parameters.get("name") ?? "")
        let body = try await request.body.collect(upTo: 64 * 1024)
        guard let promote = try? APIJSON.decode(PromoteRequest.self, from: body.readableBytesView) else {
            throw HTTPError(.badRequest, message: #"The body must be {"release": "<number or id>"}"#)
        }
        return try Response.json(try await publisher.move(.promote(release: promote.release), permit: permit, logger: context.logger))
    }

    @Sendable func rollback(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let permit = try grant.permit(.promote, channel: context.parameters.get("name") ?? "")
        return try Response.json(try await publisher.move(.rollback, permit: permit, logger: context.logger))
    }

    private static func sha256(_ context: DepotRequestContext) throws -> String {
        let sha256 = context.parameters.get("sha256") ?? ""
        guard ContentAddress.isSHA256(sha256) else {
            throw HTTPError(.badRequest, message: "A blob is named by its SHA-256 in lower-case hex")
        }
        return sha256
    }
}
