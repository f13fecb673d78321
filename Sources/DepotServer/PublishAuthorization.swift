import Hummingbird

/// The publish token every route of the `/v1` group needs (``BearerAuthenticator``): checked
/// before any handler runs, so no handler can forget it. The routes outside the group say why
/// in ``buildRouter(recorder:metrics:sendsRequestIDs:resolver:maximumDeltaBases:patches:publishers:files:releases:rollouts:reports:documents:health:dashboard:responder:)``.
struct PublishAuthorization: RouterMiddleware {
    typealias Context = DepotRequestContext
    let authenticator: BearerAuthenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try authenticator.authorize(request)
        return try await next(request, context)
    }
}
