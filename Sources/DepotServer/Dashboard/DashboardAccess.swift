import Hummingbird

/// What a dashboard reader may do.
enum DashboardRole: String, Sendable, Codable {
    /// Read, and re-point channels (a publish token).
    case admin
    /// Read only (a read token, or an allowed address).
    case reader
}

/// Who may read the dashboard and its admin API, as `/metrics` decides it: a token, or a client
/// address on the allow-list (``ForwardedClient/allowListAddress(peer:forwardedFor:forwarded:trustedProxies:)``:
/// behind a proxy, only one Depot trusts).
struct DashboardAccess: Sendable {
    let publishers: BearerAuthenticator
    let readers: BearerAuthenticator
    let allowedAddresses: Set<String>
    let trustedProxies: Set<String>

    /// The role of a request with this `Authorization` field from this client address: a publish
    /// token makes an admin, a read token a reader; a request without credentials from an
    /// allowed address reads. `nil`: no access (wrong credentials get no fallback to the
    /// address, so a browser asks again).
    func role(authorization: String?, client: String?) -> DashboardRole? {
        guard let authorization else { return client.map(allowedAddresses.contains) == true ? .reader : nil }
        guard let presented = BearerAuthenticator.credentials(authorization) else { return nil }
        if publishers.accepts(presented.token) { return .admin }
        if readers.accepts(presented.token) { return .reader }
        return nil
    }

    /// The request's role; 401 with a `Basic` challenge (so a browser asks for the token) when it
    /// has none.
    func authorize(_ request: Request, context: DepotRequestContext) throws -> DashboardRole {
        let client = request.allowListAddress(context: context, trustedProxies: trustedProxies)
        guard let role = role(authorization: request.headers[.authorization], client: client) else { throw Self.challenge }
        return role
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
            message: "The dashboard needs a token: any user name, and a publish or dashboard read token as the password"
        )
    }
}
