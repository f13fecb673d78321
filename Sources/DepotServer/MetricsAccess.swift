import Hummingbird

/// Who may read `/metrics` (a ``RouteGate``): with `metrics.token` set, a request with that
/// bearer token (401 otherwise); without it, a client address of `metrics.allowedAddresses`
/// (403 for others, recorded in the audit trail).
///
/// The address is the client's, not the connection's: behind a reverse proxy listed in
/// `http.trustedProxies`, every connection comes from the proxy (127.0.0.1 behind a local nginx),
/// so the client is read from `X-Forwarded-For` as the access log reads it (``ForwardedClient``).
struct MetricsAccess: RouteGate {
    let allowedAddresses: Set<String>
    let trustedProxies: Set<String>
    let authenticator: BearerAuthenticator?

    init(allowedAddresses: Set<String>, trustedProxies: Set<String>, token: String?) {
        self.allowedAddresses = allowedAddresses
        self.trustedProxies = trustedProxies
        self.authenticator = token.map { BearerAuthenticator(tokens: [AccessToken(name: "metrics-token", token: $0, scopes: AccessScopes())]) }
    }

    func admit(_ request: Request, context: DepotRequestContext) throws {
        if let authenticator {
            try authenticator.authenticate(request)
            return
        }
        let client = request.allowListAddress(context: context, trustedProxies: trustedProxies)
        guard let client, allowedAddresses.contains(client) else {
            throw GateRefusal(
                actor: Actor(name: DashboardRole.byAddress.name, client: client),
                needs: "metrics.allowedAddresses",
                answer: HTTPError(.forbidden, message: "Metrics are not available to this address")
            )
        }
    }
}
