import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import HTTPTypes
import Hummingbird

/// The read side of publishing: the routes of ``ContentTarget/Route`` (`/manifest.json`, the
/// default channel's document; the live files with their digest sidecars; the immutable blob
/// URLs) and the patches. Every answer comes from ``ResourceResponder``; only GET and HEAD are
/// allowed (405 otherwise).
struct ContentController: Sendable {
    let resolver: ContentResolver
    let responder: ResourceResponder
    let deltaEncoding: DeltaEncoding
    let metrics: DepotMetrics
    /// Makes the patches clients ask for that no publish made (``DeltaConfiguration/onRequest``).
    let patches: PatchMaker

    init(resolver: ContentResolver, responder: ResourceResponder, metrics: DepotMetrics, maximumDeltaBases: Int, patches: PatchMaker) {
        self.resolver = resolver
        self.responder = responder
        self.metrics = metrics
        self.patches = patches
        self.deltaEncoding = DeltaEncoding(
            content: resolver.content,
            metrics: metrics,
            fileSystem: responder.fileSystem,
            maximumBases: maximumDeltaBases
        )
    }

    static let otherMethods: [HTTPRequest.Method] = [.post, .put, .delete, .patch, .options]

    func addRoutes(to router: Router<DepotRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] + Self.otherMethods {
            for route in ContentTarget.Route.allCases {
                router.on(route.path, method: method) { request, _ in try await serve(request, route: route) }
            }
            router.on(RouterPath(TreeObject.Kind.delta.route), method: method, use: delta)
        }
    }

    /// A ``ContentTarget``: `/manifest.json`, the document of the default channel, revalidated
    /// by every poll by default (`channels.cacheControl`) so an unchanged poll costs one small
    /// 304; `/files/{path}`, the live version with gzip negotiated and RFC 3229 patches, or its
    /// digest sidecar (`.md5`, `.sha256`: hex and a newline; a published file of that name
    /// wins); `/blobs/{sha256}` and `.gz`: exactly those bytes, cacheable for a year.
    @Sendable func serve(_ request: Request, route: ContentTarget.Route) async throws -> Response {
        guard let target = try ContentTarget(route: route, path: request.uri.path) else {
            throw HTTPError(.notFound, message: "No file at this path")
        }
        guard let resource = try await resolver.load(target) else { throw HTTPError(.notFound, message: target.notFoundMessage) }
        if case .file = target, let delta = try await deltaEncoding.respond(to: request, resource: resource) { return delta }
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    /// `/deltas/{from}/{to}`: the gzip-compressed VCDIFF patch from the content with SHA-256
    /// `from` to the content `to`, cacheable for a year like a blob: a stored patch between
    /// two versions of a file, made by a publish or, for any other earlier version of the path,
    /// on the first request for it (``PatchMaker/requestPatch(from:to:)``: 503 with
    /// `Retry-After` while too many wait); or one between two release documents or two pages
    /// (made after each release; no request makes one).
    @Sendable func delta(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let from = context.parameters.get("from") ?? ""
        let to = context.parameters.get("to") ?? ""
        _ = try ResourceResponder.method(of: request)
        let noPatch = HTTPError(.notFound, message: "No patch from \(RequestedName.quoted(from)) to \(RequestedName.quoted(to))")
        guard let patch = TreeObject(in: .delta, named: from + "/" + to) else { throw noPatch }
        var found = try await resolver.content.delta(patch)
        if found == nil { found = try await resolver.content.documentDelta(patch) }
        if found == nil {
            switch try await patches.requestPatch(from: from, to: to) {
            case .done: found = try await resolver.content.delta(patch)
            case .refused: break
            case .busy: throw HTTPError.busy(making: "patches")
            }
        }
        guard let (resource, saving) = found else { throw noPatch }
        let response = try responder.respond(to: request, resource: resource, now: .now())
        if request.method == .get, response.status == .ok { metrics.recordDeltaSaving(saving) }
        return response
    }
}
