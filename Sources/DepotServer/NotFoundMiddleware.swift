import HTTPTypes
import Hummingbird

/// Marks a 404 that says nothing of caching `Cache-Control: no-store`: what is missing now may
/// be there in a moment (a channel's first release, a variant made after its commit, a page's
/// pack), and a shared cache keeps a 404 that says nothing for as long as it likes (Varnish as
/// installed: two minutes), answering it for an object the origin then holds.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            if response.status == .notFound, response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
            return response
        } catch let error as HTTPError where error.status == .notFound && error.headers[.cacheControl] == nil {
            var edited = error
            edited.headers[.cacheControl] = "no-store"
            throw edited
        }
    }
}
