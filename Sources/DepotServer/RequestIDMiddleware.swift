import HTTPTypes
import Hummingbird

/// Sends each request's id (Hummingbird's `context.id`, also the `hb.request.id` of its log
/// lines) back as `X-Request-Id`, so a client's report can be matched with the server's log.
/// The access-log line itself is ``DirectResponder``'s, which reads the id from the response.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = context.id
            return response
        } catch let error as HTTPError {
            var edited = error
            edited.headers[.requestID] = context.id
            throw edited
        }
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-Id")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
