import DepotHTTP
import DepotManifest
import HTTPTypes
import Hummingbird

/// The read side of publishing: `/manifest.json` (the default channel's document), the live files with their digest sidecars, and the
/// immutable blob URLs. Every answer comes from ``ResourceResponder``; only GET and HEAD are
/// allowed (405 otherwise).
struct ContentController: Sendable {
    let content: PublishedContent
    let responder: ResourceResponder
    let deltaEncoding: DeltaEncoding
    let metrics: DepotMetrics
    /// Makes patches of release documents and pages; `nil`: none are served.
    let patches: PatchMaker?

    init(content: PublishedContent, responder: ResourceResponder, metrics: DepotMetrics, patches: PatchMaker?) {
        self.content = content
        self.responder = responder
        self.metrics = metrics
        self.patches = patches
        self.deltaEncoding = DeltaEncoding(content: content, metrics: metrics, fileSystem: responder.fileSystem)
    }

    static let otherMethods: [HTTPRequest.Method] = [.post, .put, .delete, .patch, .options]

    func addRoutes(to router: Router<DepotRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] + Self.otherMethods {
            router.on("/manifest.json", method: method, use: manifest)
            router.on("/files/**", method: method, use: file)
            router.on("/blobs/:name", method: method, use: blob)
            router.on("/deltas/:from/:to", method: method, use: delta)
        }
    }

    /// `/manifest.json`: the document of the default channel (`/channels/stable`), at the URL
    /// clients polled before channels; `no-cache` by default, so an unchanged poll costs one
    /// small 304.
    @Sendable func manifest(_ request: Request, context: DepotRequestContext) async throws -> Response {
        guard let resource = content.channel(named: ChannelName.default) else {
            throw HTTPError(.notFound, message: "Nothing is published yet")
        }
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    /// `/files/{path}`: the live version, with gzip negotiated; `/files/{path}.md5` and
    /// `.sha256`: its digests as hex and a newline. A published file whose own name ends in
    /// `.md5` or `.sha256` wins over a sidecar of the same URL.
    @Sendable func file(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let path = try LogicalPath.parse(request.uri.path, prefix: "/files", maxLength: .max)
        guard let resource = try await content.file(at: path) else {
            throw HTTPError(.notFound, message: "\(path) is not published")
        }
        if let delta = try await deltaEncoding.respond(to: request, resource: resource) { return delta }
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    /// `/deltas/{from}/{to}`: the gzip-compressed VCDIFF patch from the content with SHA-256
    /// `from` to the content `to`, cacheable for a year like a blob: a stored patch between
    /// two versions of a file, or one made on request between two release documents or two
    /// pages.
    @Sendable func delta(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let from = context.parameters.get("from") ?? ""
        let to = context.parameters.get("to") ?? ""
        var found = try await content.delta(from: from, to: to)
        if found == nil, let patches { found = try await content.documentDelta(from: from, to: to, patches: patches) }
        guard let (resource, saving) = found else {
            throw HTTPError(.notFound, message: "No patch from \(from) to \(to)")
        }
        let response = try responder.respond(to: request, resource: resource, now: .now())
        if request.method == .get, response.status == .ok { metrics.recordDeltaSaving(saving) }
        return response
    }

    /// `/blobs/{sha256}` and `/blobs/{sha256}.gz`: exactly those bytes, cacheable for a year.
    @Sendable func blob(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        let resource: Resource?
        if name.hasSuffix(".gz") {
            resource = try await content.gzipBlob(sha256: String(name.dropLast(3)))
        } else {
            resource = try await content.blob(sha256: name)
        }
        guard let resource else { throw HTTPError(.notFound, message: "No blob \(name)") }
        return try responder.respond(to: request, resource: resource, now: .now())
    }
}
