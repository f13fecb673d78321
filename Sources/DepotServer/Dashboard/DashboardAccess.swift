import Hummingbird

/// Who reads the dashboard, and what its buttons may do: the scopes of the token signed in
/// (``AccessScopes``), or reading only for an allowed address. The page shows a button only
/// where the API it calls would take the token; the API checks again (``ScopedRoutes``).
struct DashboardRole: Sendable, Encodable {
    /// The token's name, or `address` for a reader by address.
    let name: String
    let scopes: AccessScopes
    /// Whether a token was given (the header names it); `false` for a reader by address.
    var signedIn = true

    /// A reader let in by address, without a token.
    static let byAddress = DashboardRole(name: "address", scopes: AccessScopes(read: true), signedIn: false)

    /// Whether the token may change anything at all: the page then says it is signed in to act.
    var acts: Bool { AccessAction.allCases.contains { $0 != .read && scopes.allows($0, channel: nil) } }

    func mayPromote(_ channel: String) -> Bool { scopes.allows(.promote, channel: channel) }

    func mayControlRollouts(_ channel: String) -> Bool { scopes.allows(.rollouts, channel: channel) }

    /// `admin` when it may act, else `reader` (the page's `data-role`).
    var kind: String { acts ? "admin" : "reader" }

    private enum CodingKeys: String, CodingKey { case role, token, promote, rollouts, publish }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .role)
        try container.encode(name, forKey: .token)
        for (key, channels) in [(CodingKeys.promote, scopes.promote), (.rollouts, scopes.rollouts), (.publish, scopes.publish)] {
            switch channels {
            case .none: break
            case .all: try container.encode("all", forKey: key)
            case .only(let names): try container.encode(names.sorted(), forKey: key)
            }
        }
    }
}

/// Who may read the dashboard and its admin API, as `/metrics` decides it: a token with the
/// `read` scope, or a client address on the allow-list (``ForwardedClient/allowListAddress(peer:forwardedFor:forwarded:trustedProxies:)``:
/// behind a proxy, only one Depot trusts). The admin API's ``RouteGate``.
struct DashboardAccess: RouteGate {
    let tokens: BearerAuthenticator
    let allowedAddresses: Set<String>
    let trustedProxies: Set<String>

    /// The role of a request with this `Authorization` field from this client address: a token
    /// with `read` reads, and acts as its scopes allow; a request without credentials from an
    /// allowed address reads. `nil`: no access (wrong credentials get no fallback to the address,
    /// so a browser asks again).
    func role(authorization: String?, client: String?) -> DashboardRole? {
        guard let authorization else { return client.map(allowedAddresses.contains) == true ? .byAddress : nil }
        guard let presented = BearerAuthenticator.credentials(authorization), let token = tokens.accepts(presented.token), token.scopes.read
        else { return nil }
        return DashboardRole(name: token.name, scopes: token.scopes)
    }

    /// The request's role; 401 with a `Basic` challenge (so a browser asks for the token) when it
    /// has none.
    func authorize(_ request: Request, context: DepotRequestContext) throws -> DashboardRole {
        let client = request.allowListAddress(context: context, trustedProxies: trustedProxies)
        guard let role = role(authorization: request.headers[.authorization], client: client) else { throw Self.challenge }
        return role
    }

    /// The request's role, as ``authorize(_:context:)`` gives it; a refusal of a valid token
    /// without `read`, or of a request without credentials from an address not allowed, is a
    /// ``GateRefusal`` (the same 401), which ``ScopedRoutes`` records.
    func admit(_ request: Request, context: DepotRequestContext) throws -> DashboardRole {
        let client = request.allowListAddress(context: context, trustedProxies: trustedProxies)
        let authorization = request.headers[.authorization]
        if let role = role(authorization: authorization, client: client) { return role }
        guard let authorization else {
            throw GateRefusal(actor: Actor(name: DashboardRole.byAddress.name, client: client), needs: "read", answer: Self.challenge)
        }
        guard let presented = BearerAuthenticator.credentials(authorization), let token = tokens.accepts(presented.token) else {
            throw Self.challenge
        }
        throw GateRefusal(actor: Actor(name: token.name, client: client), needs: "read", answer: Self.challenge)
    }

    /// `GET /dashboard/signin`: asks for a token even from an allowed address (whose browser is
    /// never asked otherwise), then sends the browser back to the dashboard with it.
    func signIn(_ request: Request) throws -> Response {
        guard let field = request.headers[.authorization], role(authorization: field, client: nil) != nil else { throw Self.challenge }
        return Response(status: .seeOther, headers: [.location: "/dashboard/"])
    }

    static let realm = "Depot dashboard"

    static var challenge: HTTPError {
        HTTPError(
            .unauthorized,
            headers: [.wwwAuthenticate: "Basic realm=\"\(realm)\", charset=\"UTF-8\"", .cacheControl: "no-store"],
            message: "The dashboard needs a token with the read scope: any user name, and the token as the password"
        )
    }
}
