/// Routes with values filled in, and the gated routes and scoped tokens the route-authorization
/// tables use: shared by the in-process tables and the suites that send them over a socket.
package enum RouteSamples {
    /// `route`'s path with each parameter given a well-formed value.
    package static func concrete(_ route: String) -> (method: String, path: String) {
        let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
        let sha = String(repeating: "a", count: 64)
        let path = parts[1].split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            switch segment {
            case "{sha256}", "{id}", "{from}", "{to}": sha
            case "{name}": "stable"
            case "{action}": "pause"
            case "**": "a.txt"
            default: String(segment)
            }
        }
        return (parts[0], path.joined(separator: "/"))
    }

    /// The routes behind a `RouteGate` of ScopedRoutes, with the dashboard on and no address
    /// allowed: the status without credentials, with a token without `read`, and with one with it
    /// (`/metrics` takes no token but its own `metrics.token`; `diff` and `file` without their
    /// query are the handler's 400). Over a socket, where requests have an address:
    /// ClientAddressTests.gates.
    package static let gated: [(route: String, bare: Int, noRead: Int, read: Int)] = [
        ("GET /metrics", 403, 403, 403),
        ("GET /v1/admin/overview", 401, 401, 200),
        ("GET /v1/admin/diff", 401, 401, 400),
        ("GET /v1/admin/file", 401, 401, 400),
        ("GET /v1/admin/traffic", 401, 401, 200),
    ]

    /// The tokens of the scope table, and their secrets.
    package static let tokens: [(name: String, secret: String, entry: String)] = [
        ("ci", "ci-secret", "name=ci publish=beta token=ci-secret"),
        ("reader", "reader-secret", "name=reader read token=reader-secret"),
        ("manager", "manager-secret", "name=manager promote=stable rollouts=stable read token=manager-secret"),
        // Rollouts but no promote: may pause and halt, not start one (a completed rollout moves the channel).
        ("roller", "roller-secret", "name=roller rollouts=stable read token=roller-secret"),
    ]
}
