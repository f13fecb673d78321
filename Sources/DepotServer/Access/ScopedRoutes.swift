import HTTPTypes
import Hummingbird

/// The routes that need more than being a client: the publisher's API (`/v1/…` but reports),
/// each with the action it needs, and the routes behind a ``RouteGate`` of their own
/// (`/metrics`, the admin API `/v1/admin/…`). A route of the API cannot be added without its
/// action, and its handler runs only for a token allowed it, with the request's
/// ``AccessGrant``, from which every change to a channel takes its ``Permit``; a refusal is
/// 403 with a one-line reason. Every refusal of a request that said who it is, on either kind
/// of route, is recorded in the audit trail.
struct ScopedRoutes {
    /// Where a route's channel comes from.
    enum Channel: Sendable {
        /// The route names none (an upload, a list): the action on some channel is enough.
        case none
        /// A path parameter (`channels/:name/…`).
        case parameter(String)
    }

    typealias Handler = @Sendable (Request, DepotRequestContext, AccessGrant) async throws -> Response

    /// What the routes check with: the tokens, the trail refusals go to, and the proxies
    /// whose forwarded client address is believed.
    struct Access: Sendable {
        let tokens: BearerAuthenticator
        let audit: AuditTrail
        let trustedProxies: Set<String>
    }

    let router: Router<DepotRequestContext>
    let access: Access

    /// The API's routes: `/v1/…`.
    var group: RouterGroup<DepotRequestContext> { router.group("v1") }

    /// Adds `GET path` (from the root: `/metrics`, `/v1/admin/…`) behind `gate`: `handler` runs
    /// with the pass of a request the gate admits; a ``GateRefusal`` is recorded in the audit
    /// trail, then answered as the gate says.
    func get<Pass>(
        _ path: RouterPath,
        gate: some RouteGate<Pass>,
        use handler: @escaping @Sendable (Request, DepotRequestContext, Pass) async throws -> Response
    ) {
        let audit = access.audit
        router.get(path) { request, context in
            let pass: Pass
            do {
                pass = try gate.admit(request, context: context)
            } catch let refusal as GateRefusal {
                await audit.refused(refusal.actor, needing: refusal.needs, method: .get, path: request.uri.path)
                throw refusal.answer
            }
            return try await handler(request, context, pass)
        }
    }

    func head(_ path: RouterPath, requires action: AccessAction, channel: Channel = .none, use handler: @escaping Handler) {
        on(path, method: .head, requires: action, channel: channel, use: handler)
    }

    func get(_ path: RouterPath, requires action: AccessAction, channel: Channel = .none, use handler: @escaping Handler) {
        on(path, method: .get, requires: action, channel: channel, use: handler)
    }

    func put(_ path: RouterPath, requires action: AccessAction, channel: Channel = .none, use handler: @escaping Handler) {
        on(path, method: .put, requires: action, channel: channel, use: handler)
    }

    func post(_ path: RouterPath, requires action: AccessAction, channel: Channel = .none, use handler: @escaping Handler) {
        on(path, method: .post, requires: action, channel: channel, use: handler)
    }

    func delete(_ path: RouterPath, requires action: AccessAction, channel: Channel = .none, use handler: @escaping Handler) {
        on(path, method: .delete, requires: action, channel: channel, use: handler)
    }

    /// Adds the route: 401 without a valid token (``BearerAuthenticator/authenticate(_:)``), 403
    /// when its scopes do not allow `action` on the route's channel, else `handler`.
    func on(_ path: RouterPath, method: HTTPRequest.Method, requires action: AccessAction, channel: Channel, use handler: @escaping Handler) {
        let (authenticator, audit, trustedProxies) = (access.tokens, access.audit, access.trustedProxies)
        group.on(path, method: method) { request, context in
            let token = try authenticator.authenticate(request)
            let grant = AccessGrant(token: token, client: request.clientAddress(context: context, trustedProxies: trustedProxies))
            do {
                switch channel {
                case .none: try grant.check(action, channel: nil)
                case .parameter(let name): try grant.check(action, channel: context.parameters.get(name) ?? "")
                }
                return try await handler(request, context, grant)
            } catch let refusal as ScopeRefusal {
                await audit.refused(refusal, method: method, path: request.uri.path)
                throw refusal.httpError
            }
        }
    }
}
