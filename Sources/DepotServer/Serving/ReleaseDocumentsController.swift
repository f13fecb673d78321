import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import HTTPTypes
import Hummingbird

/// What clients poll and read for releases (docs/releases.md): `/channels/{name}`, signed and
/// `no-cache`; `/releases/{id}`, `/pages/{sha256}`, `/packs/{page sha256}` and
/// `/roots/{version}.json`, immutable for a year. Only GET and HEAD are allowed.
struct ReleaseDocumentsController: Sendable {
    let content: PublishedContent
    /// Makes and keeps the pages' packs.
    let packs: PagePacks
    let releases: ReleaseStore
    let responder: ResourceResponder

    func addRoutes(to router: Router<DepotRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] + ContentController.otherMethods {
            router.on(RouterPath(TreeObject.Kind.channel.route), method: method, use: channel)
            router.on(RouterPath(TreeObject.Kind.release.route), method: method, use: release)
            router.on(RouterPath(TreeObject.Kind.page.route), method: method, use: page)
            router.on(RouterPath(TreeObject.Kind.pack.route), method: method, use: pack)
            router.on(RouterPath(TreeObject.Kind.root.route), method: method, use: root)
        }
    }

    /// `/roots/{version}.json`: a root of the chain (``ChannelSigner/roots``), immutable like the
    /// release documents.
    @Sendable func root(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard let object = TreeObject(in: .root, named: name),
            let root = content.documents.signer.roots.first(where: { (try? TreeObject.root($0.document.version)) == object })
        else { throw HTTPError(.notFound, message: "No root \(RequestedName.quoted(name))") }
        let resource = try PublishedContent.jsonResource(
            root.bytes,
            lastModified: HTTPDate(secondsSince1970: 0),
            lastModifiedIsStrong: false,
            cacheControl: content.cachePolicy.blobs
        )
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    @Sendable func channel(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        guard TreeObject(in: .channel, named: name) != nil, let resource = content.channel(named: name) else {
            throw HTTPError(.notFound, message: "The channel \(RequestedName.quoted(name)) has no release")
        }
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    @Sendable func release(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard TreeObject(in: .release, named: id) != nil, let document = try await releases.releaseDocument(id: id) else {
            throw HTTPError(.notFound, message: "No release \(RequestedName.quoted(id))")
        }
        return try respond(to: request, with: document)
    }

    @Sendable func page(_ request: Request, context: DepotRequestContext) async throws -> Response {
        let sha256 = context.parameters.get("sha256") ?? ""
        guard TreeObject(in: .page, named: sha256) != nil, let document = try await releases.pageDocument(sha256: sha256) else {
            throw HTTPError(.notFound, message: "No page \(RequestedName.quoted(sha256))")
        }
        return try respond(to: request, with: document)
    }

    /// `/packs/{page sha256}`: the page's small files in one body (``PagePacks/pack(page:kind:)``),
    /// with ranges, so that an interrupted fetch resumes where it stopped; `/packs/{page sha256}.br`,
    /// their contents as one brotli stream. Made once and kept (``PagePacks``); the method is
    /// checked first, so that only a GET or HEAD can make one.
    @Sendable func pack(_ request: Request, context: DepotRequestContext) async throws -> Response {
        _ = try ResourceResponder.method(of: request)
        let name = context.parameters.get("sha256") ?? ""
        guard let object = TreeObject(in: .pack, named: name), let resource = try await packs.pack(object) else {
            throw HTTPError(.notFound, message: "No pack \(RequestedName.quoted(name))")
        }
        return try responder.respond(to: request, resource: resource, now: .now())
    }

    private func respond(to request: Request, with document: ReleaseStore.StoredDocument) throws -> Response {
        let resource = try PublishedContent.jsonResource(
            document.bytes,
            lastModified: HTTPDate(secondsSince1970: document.createdAt),
            lastModifiedIsStrong: true,
            cacheControl: content.cachePolicy.blobs
        )
        return try responder.respond(to: request, resource: resource, now: .now())
    }
}
