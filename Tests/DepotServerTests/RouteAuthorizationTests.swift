import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// What each route of the server needs, as a table checked against the router itself: a route
/// added without a row fails here, and every route that needs a publish token is refused without
/// one, by the `/v1` group's middleware, whatever its handler does.
@Suite("What each route needs")
struct RouteAuthorizationTests {
    enum Need: Equatable {
        /// A publish token (the `/v1` group's middleware).
        case publishToken
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
    ]

    /// What clients read, with GET and HEAD (other methods are refused, 404 or 405, to anyone).
    static let content = [
        "/manifest.json", "/files/**", "/blobs/{name}", "/deltas/{from}/{to}", "/channels/{name}", "/releases/{id}", "/pages/{sha256}",
        "/packs/{sha256}",
        "/roots/{name}",
    ]

    static let table: [String: Need] = Dictionary(
        uniqueKeysWithValues: publishing.map { ($0, Need.publishToken) }
            + ["POST /v1/reports", "GET /healthz", "GET /readyz"].map { ($0, Need.nothing) }
            + content.flatMap { path in ["GET", "HEAD"].map { ("\($0) \(path)", Need.nothing) } }
            + content.flatMap { path in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"].map { ("\($0) \(path)", Need.nothing) } }
            + ["GET", "HEAD", "POST", "PATCH", "OPTIONS"].map { ("\($0) /v1/files/**", Need.notAllowed) } + [("GET /metrics", .ownRules)]
    )

    /// `route`'s path with each parameter given a well-formed value.
    static func concrete(_ route: String) -> (method: String, path: String) {
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

    @Test("the table names every route the router has, and no other")
    func tableIsComplete() async throws {
        try await LiveServer.withPublishing { server in
            let routes = Set(server.routes.all)
            // A method the router answers for a route (405 rows) is listed once per method.
            #expect(routes.subtracting(Self.table.keys).sorted() == [], "routes without a row")
            #expect(Set(Self.table.keys).subtracting(routes).sorted() == [], "rows without a route")
        }
    }

    @Test("every route that needs a publish token is refused without one, or with a wrong one; the others answer without one")
    func enforced() async throws {
        try await LiveServer.withPublishing { server in
            for (route, need) in Self.table.sorted(by: { $0.key < $1.key }) {
                let (method, path) = Self.concrete(route)
                let bare = try await RawHTTPConnection.with(port: server.port) {
                    try await $0.request(method, path, body: method == "PUT" ? [0] : [])
                }
                let wrong = try await RawHTTPConnection.with(port: server.port) {
                    try await $0.request(method, path, headers: [("Authorization", "Bearer not-the-token")], body: method == "PUT" ? [0] : [])
                }
                switch need {
                case .publishToken:
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
}
