import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The publisher's release API; every route needs a publish token.
///
/// - `HEAD /v1/blobs/{sha256}`: 200 when the server holds that content, else 404.
/// - `PUT /v1/blobs/{sha256}`: stores the body, streamed and verified like a file publish, and
///   checked to have that SHA-256. Content the server holds already gets 200 without the body
///   being read (the connection is then closed).
/// - `POST /v1/releases`: commits a release of uploaded blobs (``CommitRequest``), all or
///   nothing.
/// - `GET /v1/releases`, `GET /v1/channels`: what there is.
/// - `POST /v1/channels/{name}/promote` (`{"release": "7"}`) and `POST
///   /v1/channels/{name}/rollback`: re-point a channel, with no upload.
struct ReleaseController: Sendable {
    let catalog: Catalog
    let store: BlobStore
    let content: PublishedContent
    let publisher: PublishController

    var authenticator: BearerAuthenticator { publisher.authenticator }
    var configuration: PublishConfiguration { publisher.configuration }

    func addRoutes(to router: Router<DepotRequestContext>) {
        router.head("/v1/blobs/:sha256", use: hasBlob)
        router.put("/v1/blobs/:sha256", use: uploadBlob)
        router.post("/v1/blobs/missing", use: missingBlobs)
        router.post("/v1/releases", use: commit)
        router.get("/v1/releases", use: list)
        router.get("/v1/channels", use: channels)
        router.post("/v1/channels/:name/promote", use: promote)
        router.post("/v1/channels/:name/rollback", use: rollback)
    }

    /// The body of `POST /v1/releases`.
    struct CommitRequest: Decodable {
        /// The channel to publish to; `stable` when absent.
        var channel: String?
        var files: [File]?
        /// Paths to take out.
        var delete: [String]?
        /// The release holds exactly `files`.
        var replace: Bool?

        struct File: Decodable {
            var path: String
            var sha256: String
            /// The type served; from the path's extension when absent.
            var contentType: String?
        }
    }

    struct ReleaseReply: Encodable {
        let id: String
        let number: Int64
        let url: String
        let channel: String
        let createdAt: String
        let files: Int64
        let bytes: Int64

        init(_ release: ReleaseSummary) {
            id = release.id
            number = release.number
            url = "/releases/\(release.id)"
            channel = release.channel
            createdAt = HTTPDate(secondsSince1970: release.createdAt).imfFixdate
            files = release.files
            bytes = release.bytes
        }
    }

    struct BlobReply: Encodable {
        let sha256: String
        let size: Int64
        /// False when the server held the content already and did not read the body.
        let stored: Bool
    }

    struct CommitReply: Encodable {
        let release: ReleaseReply?
        let created: Bool
        let channel: String
        let serial: Int64
        /// The versions the commit made: only what changed, however many files it listed.
        let files: [FileReply]
        /// How many listed files the channel held already.
        let unchanged: Int
        let removed: [String]
    }

    /// A version the commit made.
    struct FileReply: Encodable {
        let path: String
        let version: Int64
        let size: Int64
        let sha256: String
        let gzipSize: Int64?
    }

    @Sendable func hasBlob(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let sha256 = try Self.sha256(context)
        guard try await holds(sha256) != nil else { return Response(status: .notFound) }
        store.release(sha256)
        return Response(status: .ok)
    }

    /// `POST /v1/blobs/missing` with `{"sha256": [...]}`: which of those blobs the server lacks,
    /// in the order asked, as `{"missing": [...]}`. One request tells a publisher what to upload
    /// of a folder of any size.
    @Sendable func missingBlobs(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        struct MissingRequest: Decodable { var sha256: [String] }
        let body = try await request.body.collect(upTo: configuration.maxCommitBytes)
        guard let asked = try? JSONDecoder().decode(MissingRequest.self, from: Data(body.readableBytesView)) else {
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
        let known = try await catalog.blobRecords(Set(asked.sha256))
        var missing: [String] = []
        var seen = Set<String>()
        for sha256 in asked.sha256 where seen.insert(sha256).inserted {
            if known[sha256] != nil, try await store.isStored(sha256) { continue }
            missing.append(sha256)
        }
        return try Self.json(["missing": missing], status: .ok)
    }

    @Sendable func uploadBlob(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let sha256 = try Self.sha256(context)
        if let record = try await holds(sha256) {
            store.release(sha256)
            // Not reading a body that is on its way: the connection cannot carry another request.
            let unread = request.headers[.contentLength] != "0"
            return try Self.json(BlobReply(sha256: record.sha256, size: record.size, stored: false), status: .ok, close: unread)
        }
        let blob: BlobRecord
        switch try await publisher.receive(request, context: context, label: sha256, sha256: sha256) {
        case .stored(let stored): blob = stored
        case .refused(let response): return response
        }
        defer { store.release(blob.sha256) }
        try await catalog.recordUpload(blob, now: .now())
        context.logger.info("Blob uploaded", metadata: ["sha256": "\(sha256)", "size": "\(blob.size)"])
        return try Self.json(BlobReply(sha256: blob.sha256, size: blob.size, stored: true), status: .created)
    }

    /// Commits of at least this many files give freed memory back when done (``Heap``).
    static let largeCommit = 1000

    @Sendable func commit(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let (response, listed) = try await commitRelease(request, context: context)
        // Its body, decoded list and records were tens of megabytes for 100,000 files, all freed.
        if listed >= Self.largeCommit { Heap.returnFreedPages() }
        return response
    }

    /// The commit; returns the response and how many files the request listed.
    private func commitRelease(_ request: Request, context: DepotRequestContext) async throws -> (Response, Int) {
        try authenticator.authorize(request)
        let started = ContinuousClock.now
        let body = try await request.body.collect(upTo: configuration.maxCommitBytes)
        let commit: CommitRequest
        do {
            commit = try JSONDecoder().decode(CommitRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw HTTPError(.badRequest, message: "The release is not the JSON expected: \(error)")
        }
        let channel = commit.channel ?? ChannelName.default
        var files: [Catalog.ReleaseFile] = []
        var held: Set<String> = []
        defer { for sha256 in held { store.release(sha256) } }
        var missing: [String] = []
        let listed = commit.files ?? []
        // Held before their records are read: collection removes no held blob, nor its gzip
        // variant, so what a record says of the files stays true until the commit is done.
        for sha256 in Set(listed.map(\.sha256).filter(ContentAddress.isSHA256)) where try await store.holdIfStored(sha256) {
            held.insert(sha256)
        }
        let records = try await catalog.blobRecords(held)
        for file in listed {
            let path = try LogicalPath.check(file.path, maxLength: configuration.maxPathLength)
            guard let blob = records[file.sha256] else {
                missing.append(file.path)
                continue
            }
            files.append(.init(path: path, blob: blob, contentType: file.contentType ?? MediaType.forPath(path)))
        }
        guard missing.isEmpty else {
            throw HTTPError(
                .unprocessableContent,
                message: "The server lacks the content of \(missing.count) file(s), upload them first: \(missing.prefix(5).joined(separator: ", "))"
            )
        }
        let deletions = try (commit.delete ?? []).map { try LogicalPath.check($0, maxLength: configuration.maxPathLength) }
        // Patches for the new content only: a listed file the channel holds already has its own.
        let live = try await catalog.liveContent(of: files.map(\.path), channel: channel)
        for file in files where live[file.path] != file.blob.sha256 {
            await publisher.patches?.makePatches(path: file.path, target: file.blob)
        }
        let outcome = try await refusingBadChanges {
            try await catalog.commit(
                .init(
                    channel: channel,
                    files: files,
                    deletions: deletions,
                    replace: commit.replace ?? false,
                    now: .now(),
                    keepVersions: configuration.keepVersions
                )
            )
        }
        if outcome.created {
            await publisher.patches?.makeDocumentPatches(channel: channel)
            try await content.changed(paths: outcome.files.map(\.path) + outcome.removed, channel: channel)
        }
        publisher.metrics.recordPublish(duration: ContinuousClock.now - started, unchanged: !outcome.created)
        context.logger.info(
            outcome.created ? "Release committed" : "Release unchanged",
            metadata: ["channel": "\(channel)", "release": "\(outcome.release?.number ?? 0)", "files": "\(files.count)"]
        )
        let reply = CommitReply(
            release: outcome.release.map(ReleaseReply.init),
            created: outcome.created,
            channel: channel,
            serial: outcome.channelSerial,
            files: outcome.files.map { FileReply(path: $0.path, version: $0.version, size: $0.size, sha256: $0.sha256, gzipSize: $0.gzipSize) },
            unchanged: outcome.unchanged,
            removed: outcome.removed
        )
        return (try Self.json(reply, status: outcome.created ? .created : .ok), listed.count)
    }

    @Sendable func list(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? 100
        let releases = try await catalog.releases(limit: max(1, min(limit, 10_000)))
        return try Self.json(["releases": releases.map(ReleaseReply.init)], status: .ok)
    }

    struct ChannelReply: Encodable {
        let name: String
        let serial: Int64
        let updatedAt: String
        let release: ReleaseReply
    }

    @Sendable func channels(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let channels = try await catalog.channels().map {
            ChannelReply(
                name: $0.name,
                serial: $0.serial,
                updatedAt: HTTPDate(secondsSince1970: $0.updatedAt).imfFixdate,
                release: ReleaseReply($0.release)
            )
        }
        return try Self.json(["channels": channels], status: .ok)
    }

    struct MoveReply: Encodable {
        let channel: String
        let serial: Int64
        let from: ReleaseReply?
        let to: ReleaseReply
        let added: Int
        let changed: Int
        let removed: Int
    }

    @Sendable func promote(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        struct PromoteRequest: Decodable { var release: String }
        let body = try await request.body.collect(upTo: 64 * 1024)
        guard let promote = try? JSONDecoder().decode(PromoteRequest.self, from: Data(body.readableBytesView)) else {
            throw HTTPError(.badRequest, message: #"The body must be {"release": "<number or id>"}"#)
        }
        let channel = context.parameters.get("name") ?? ""
        let move = try await refusingBadChanges { try await catalog.promote(promote.release, to: channel, now: .now()) }
        return try await reply(to: move, context: context)
    }

    @Sendable func rollback(_ request: Request, context: DepotRequestContext) async throws -> Response {
        try authenticator.authorize(request)
        let channel = context.parameters.get("name") ?? ""
        let move = try await refusingBadChanges { try await catalog.rollback(channel, now: .now()) }
        return try await reply(to: move, context: context)
    }

    private func reply(to move: Catalog.ChannelMove, context: DepotRequestContext) async throws -> Response {
        let diff = move.diff
        try await content.changed(
            paths: diff.added.map(\.path) + diff.changed.map(\.after.path) + diff.removed.map(\.path),
            channel: move.channel
        )
        context.logger.info(
            "Channel moved",
            metadata: ["channel": "\(move.channel)", "from": "\(move.from?.number ?? 0)", "to": "\(move.to.number)", "serial": "\(move.serial)"]
        )
        let reply = MoveReply(
            channel: move.channel,
            serial: move.serial,
            from: move.from.map(ReleaseReply.init),
            to: ReleaseReply(move.to),
            added: move.diff.added.count,
            changed: move.diff.changed.count,
            removed: move.diff.removed.count
        )
        return try Self.json(reply, status: .ok)
    }

    /// The record of `sha256`, held, when the catalog knows it and the store has its file.
    private func holds(_ sha256: String) async throws -> BlobRecord? {
        guard ContentAddress.isSHA256(sha256), let record = try await catalog.blobRecord(sha256: sha256) else {
            return nil
        }
        return try await store.holdIfStored(sha256) ? record : nil
    }

    private static func sha256(_ context: DepotRequestContext) throws -> String {
        let sha256 = context.parameters.get("sha256") ?? ""
        guard ContentAddress.isSHA256(sha256) else {
            throw HTTPError(.badRequest, message: "A blob is named by its SHA-256 in lower-case hex")
        }
        return sha256
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status, close: Bool = false) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if close { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try PublishController.encoder.encode(value))))
    }
}
