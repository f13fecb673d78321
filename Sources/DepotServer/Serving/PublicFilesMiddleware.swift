import DepotConnection
import DepotHTTP
import Hummingbird

/// Serves the public folder for every request the router has no route for.
///
/// The router runs first, so API routes always win; a request for which it has no route is
/// looked up in the ``PublicSite`` (``ContentTarget/init(publicPath:)``). Until the folder's
/// first scan is done (``PublicSite/isScanned``), a path it does not serve yet is answered 503
/// with `Retry-After`, not 404: the file may be there.
struct PublicFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let resolver: ContentResolver
    let responder: ResourceResponder

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The router's "no route" reaches a middleware thrown in some builds and returned in
        // others (Hummingbird 2.28.1, debug versus release), so both are recognised. Either way it
        // has no body, unlike a matched route's own 404, which keeps its message.
        do {
            let response = try await next(request, context)
            guard response.status == .notFound, response.body.contentLength == 0 else { return response }
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
        }
        return try servePublic(request)
    }

    private func servePublic(_ request: Request) throws -> Response {
        let target = try ContentTarget(publicPath: request.uri.path)
        guard let resource = resolver.cached(target) else {
            guard resolver.site.isScanned else { throw resolver.site.notYetServed }
            throw HTTPError(.notFound, message: target.notFoundMessage)
        }
        return try responder.respond(to: request, resource: resource, now: .now())
    }
}
