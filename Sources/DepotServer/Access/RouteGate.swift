import Hummingbird

/// Who may use a route that is not for the publishers' scoped tokens (`/metrics` with its own
/// token or addresses, the admin API with a `read` token or an allowed address), as a check
/// ``ScopedRoutes`` runs before the handler: it lets a request in, with what it learned of it
/// (``Pass``), or refuses it.
protocol RouteGate<Pass>: Sendable {
    /// What the handler gets of an admitted request.
    associatedtype Pass: Sendable

    /// `request`'s pass. Throws ``GateRefusal`` for a request that said who it is (a valid
    /// token, or a client address) and is not allowed: recorded in the audit trail; any other
    /// error (a 401 without valid credentials) goes out unrecorded, as for `/v1`.
    func admit(_ request: Request, context: DepotRequestContext) throws -> Pass
}

/// A request a ``RouteGate`` refused to someone it identified: `answer` goes out, and the audit
/// trail records `actor` and what it lacked.
struct GateRefusal: Error, Sendable {
    let actor: Actor
    /// What the route needs, for the audit trail: `read`, `metrics.allowedAddresses`.
    let needs: String
    /// The response, the same as the route gave before refusals were recorded.
    let answer: HTTPError
}
