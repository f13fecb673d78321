import DepotAPI
import DepotHTTP
import DepotManifest
import DepotStore
import HTTPTypes
import Hummingbird

/// `PUT /v1/files/{path}` publishes, `DELETE /v1/files/{path}` unpublishes; both need a token
/// that may publish to the default channel. An HTTP adapter over ``Publisher``.
///
/// A publish streams the body into the blob store while its SHA-256, MD5 and gzip variant are
/// computed (``UploadReceiver``), checks any digest the client sent, then ``Publisher`` makes
/// the patches from earlier versions and commits a release of the default channel's files plus
/// this one, in one catalog transaction. Until that commit nobody can see any of it; a failure
/// before it (a client gone, a digest mismatch, a full disk) leaves nothing behind.
struct PublishController: Sendable {
    let publisher: Publisher
    let uploads: UploadReceiver

    static let prefix = "/v1/files"

    /// The publishing routes in `publishing` (the `/v1` group, behind the tokens' scopes), and
    /// the answer to other methods (405, no token needed) in `router`.
    func addRoutes(to publishing: ScopedRoutes, refusingOthersIn router: Router<DepotRequestContext>) {
        publishing.put("files/**", requires: .publish, use: publish)
        publishing.delete("files/**", requires: .publish, use: unpublish)
        // No path at all: the handlers answer 400.
        publishing.put("files", requires: .publish, use: publish)
        publishing.delete("files", requires: .publish, use: unpublish)
        for method in [HTTPRequest.Method.get, .head, .post, .patch, .options] {
            router.on("/v1/files/**", method: method) { _, _ -> Response in
                throw HTTPError(.methodNotAllowed, headers: [.allow: "PUT, DELETE"], message: "Only PUT and DELETE are allowed here")
            }
        }
    }

    @Sendable func publish(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let permit = try grant.permit(.publish, channel: ChannelName.default)
        let path = try LogicalPath.parse(request.uri.path, prefix: Self.prefix, maxLength: publisher.configuration.maxPathLength)
        let blob: BlobRecord
        switch try await uploads.receive(request, context: context, label: path) {
        case .stored(let stored, _): blob = stored
        case .refused(let response): return response
        }
        defer { uploads.store.release(blob.sha256) }
        let reply = try await publisher.publish(
            path: path,
            blob: blob,
            contentType: Self.contentType(of: request, path: path),
            permit: permit,
            logger: context.logger
        )
        var response = try Response.json(reply, status: reply.unchanged ? .ok : .created)
        if !reply.unchanged { response.headers[.location] = "/files/" + RequestPath.encode(reply.path) }
        return response
    }

    @Sendable func unpublish(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let permit = try grant.permit(.publish, channel: ChannelName.default)
        let path = try LogicalPath.parse(request.uri.path, prefix: Self.prefix, maxLength: publisher.configuration.maxPathLength)
        guard try await publisher.unpublish(path: path, permit: permit, logger: context.logger) else {
            throw HTTPError(.notFound, message: "\(path) is not published")
        }
        return Response(status: .noContent)
    }

    /// The request's `Content-Type`, unless it is absent or the form type curl sends by default
    /// with `--data-binary`: then the type that goes with the file's extension.
    static func contentType(of request: Request, path: String) -> String {
        guard let sent = request.headers[.contentType], !sent.hasPrefix("application/x-www-form-urlencoded") else {
            return MediaType.forPath(path)
        }
        return sent
    }
}
