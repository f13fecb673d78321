import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// What each route of the server needs, as a table checked against the router itself: a route
/// added without a row fails here, and every route that needs a token is refused without one,
/// before its handler runs; then, token by token, what each scope may do.
@Suite("What each route needs")
struct RouteAuthorizationTests {
    enum Need: Equatable {
        /// A token, with the scope the route names (``ScopedRoutes``).
        case token
        /// Nothing: content, documents, the health probes, installs' reports.
        case nothing
        /// Nothing, and the answer is 405: a method the route does not take.
        case notAllowed
        /// Its own rules: `/metrics` (metrics.token and metrics.allowedAddresses).
        case ownRules
    }

    static let publishing: [String] = [
        "PUT /v1/files/**", "DELETE /v1/files/**", "PUT /v1/files", "DELETE /v1/files",
        "HEAD /v1/blobs/{sha256}", "PUT /v1/blobs/{sha256}", "POST /v1/blobs/missing", "POST /v1/blobs",
        "POST /v1/releases", "GET /v1/releases", "GET /v1/channels",
        "POST /v1/channels/{name}/promote", "POST /v1/channels/{name}/rollback",
        "POST /v1/channels/{name}/rollout", "GET /v1/channels/{name}/rollout", "POST /v1/channels/{name}/rollout/{action}",
        "GET /v1/rollouts", "GET /v1/audit",
    ]

    /// What clients read, with GET and HEAD (other methods are refused, 404 or 405, to anyone).
    static let content = [
        "/manifest.json", "/files/**", "/blobs/{name}", "/deltas/{from}/{to}", "/channels/{name}", "/releases/{id}", "/pages/{sha256}",
        "/packs/{sha256}",
        "/roots/{name}",
    ]

    static let table: [String: Need] = Dictionary(
        uniqueKeysWithValues: publishing.map { ($0, Need.token) }
            + ["POST /v1/reports", "GET /healthz", "GET /readyz"].map { ($0, Need.nothing) }
            + content.flatMap { path in ["GET", "HEAD"].map { ("\($0) \(path)", Need.nothing) } }
            + content.flatMap { path in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"].map { ("\($0) \(path)", Need.nothing) } }
            + ["GET", "HEAD", "POST", "PATCH", "OPTIONS"].map { ("\($0) /v1/files/**", Need.notAllowed) } + [("GET /metrics", .ownRules)]
    )

    @Test("the table names every route the router has, and no other")
    func tableIsComplete() async throws {
        try await InProcessServer.withPublishing { server in
            let routes = Set(server.routes.all)
            // A method the router answers for a route (405 rows) is listed once per method.
            #expect(routes.subtracting(Self.table.keys).sorted() == [], "routes without a row")
            #expect(Set(Self.table.keys).subtracting(routes).sorted() == [], "rows without a route")
        }
    }

    @Test("every route that needs a token is refused without one, or with a wrong one; the others answer without one")
    func enforced() async throws {
        try await InProcessServer.withPublishing { server in
            for (route, need) in Self.table.sorted(by: { $0.key < $1.key }) {
                let (method, path) = RouteSamples.concrete(route)
                let bare = try await server.connection {
                    try await $0.request(method, path, body: method == "PUT" ? [0] : [])
                }
                let wrong = try await server.connection {
                    try await $0.request(method, path, headers: [("Authorization", "Bearer not-the-token")], body: method == "PUT" ? [0] : [])
                }
                switch need {
                case .token:
                    #expect(bare.status == 401 && bare.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(route): \(bare.status)")
                    #expect(wrong.status == 401, "\(route) with a wrong token: \(wrong.status)")
                case .nothing:
                    #expect(bare.status != 401 && bare.status != 403, "\(route): \(bare.status)")
                case .notAllowed:
                    #expect(bare.status == 405, "\(route): \(bare.status)")
                case .ownRules:
                    #expect(bare.status == 403 || bare.status == 401 || bare.status == 200, "\(route): \(bare.status)")
                }
            }
        }
    }

    /// Requests, each with the tokens allowed it (written by hand, not by the rule under test);
    /// `publish-token` (an unnamed token of publish.tokens) is allowed all of them.
    static let scopeRows: [(method: String, path: String, body: String, allowed: Set<String>)] = [
        ("PUT", "/v1/files/a.txt", "x", []),  // the default channel, stable
        ("DELETE", "/v1/files/a.txt", "", []),
        ("HEAD", "/v1/blobs/" + String(repeating: "a", count: 64), "", ["ci"]),
        ("POST", "/v1/blobs/missing", #"{"sha256": []}"#, ["ci"]),
        ("POST", "/v1/releases", #"{"channel": "beta", "files": []}"#, ["ci"]),
        ("POST", "/v1/releases", #"{"channel": "stable", "files": []}"#, []),
        ("POST", "/v1/releases", #"{"files": []}"#, []),  // no channel: stable
        ("GET", "/v1/releases", "", ["reader", "manager", "roller"]),
        ("GET", "/v1/channels", "", ["reader", "manager", "roller"]),
        ("GET", "/v1/audit", "", ["reader", "manager", "roller"]),
        ("POST", "/v1/channels/stable/promote", #"{"release": "1"}"#, ["manager"]),
        ("POST", "/v1/channels/beta/rollback", "", []),
        ("POST", "/v1/channels/stable/rollback", "", ["manager"]),
        ("POST", "/v1/channels/stable/rollout", #"{"release": "1"}"#, ["manager"]),
        ("GET", "/v1/channels/stable/rollout", "", ["reader", "manager", "roller"]),
        ("GET", "/v1/rollouts", "", ["reader", "manager", "roller"]),
        ("POST", "/v1/channels/beta/rollout/pause", "", []),
        ("POST", "/v1/channels/stable/rollout/pause", "", ["manager", "roller"]),
    ]

    @Test("token × request: each scope allows what the table says and nothing more; a refusal is 403 naming the token and the scope")
    func scopes() async throws {
        var configuration = ServerConfiguration()
        configuration.accessTokens = try RouteSamples.tokens.enumerated().map { try AccessToken(entry: $0.element.entry, position: $0.offset + 1) }
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let everyone = RouteSamples.tokens.map { ($0.name, $0.secret) } + [("publish-token", PublishToken.secret)]
            for row in Self.scopeRows {
                for (name, secret) in everyone {
                    let response = try await server.connection {
                        try await $0.request(row.method, row.path, headers: [("Authorization", "Bearer \(secret)")], body: Array(row.body.utf8))
                    }
                    let what = "\(name): \(row.method) \(row.path) \(row.body)"
                    if name == "publish-token" || row.allowed.contains(name) {
                        #expect(response.status != 401 && response.status != 403, "\(what) → \(response.status) \(response.bodyText)")
                    } else {
                        #expect(response.status == 403, "\(what) → \(response.status)")
                        // A HEAD answer has no body.
                        if row.method != "HEAD" { #expect(response.bodyText.contains("The token \(name) may not"), "\(what): \(response.bodyText)") }
                    }
                }
            }
        }
    }
}
