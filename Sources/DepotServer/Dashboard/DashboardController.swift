import DepotManifest
import Hummingbird
import NIOCore

/// The operator's dashboard and the admin API it reads; served only with `dashboard.enabled`.
///
/// - `GET /dashboard/` (or `/dashboard`): channels (with rollback and promote buttons for a publish token),
///   the last hour's traffic, releases. `GET /dashboard/diff?from=&to=`: what one release
///   changes against another. `GET /dashboard/file?path=`: a path's versions and patches.
///   `GET /dashboard/audit?channel=&token=`: the audit trail's newest records.
///   `GET /dashboard/signin`: asks for a token even from an allowed address.
/// - `GET /v1/admin/overview`, `/v1/admin/diff?from=&to=`, `/v1/admin/file?path=`,
///   `/v1/admin/traffic`: the same, as JSON.
/// - `GET /dashboard/dashboard.css` and `/dashboard/dashboard.js`: its style and script,
///   built into the binary, readable by anyone (they hold no data).
///
/// The buttons call `POST /v1/channels/{name}/rollback` and `…/promote`, the API `depot release
/// rollback` and `promote` use, which needs a publish token.
struct DashboardController: Sendable {
    let data: DashboardData
    let access: DashboardAccess
    let pages: DashboardPage

    /// The pages on `routes`' router; the admin API behind ``DashboardAccess`` as a
    /// ``RouteGate``, so its refusals are recorded in the audit trail.
    func addRoutes(to routes: ScopedRoutes) {
        let router = routes.router
        router.get("/dashboard/") { request, context in
            let role = try access.authorize(request, context: context)
            return Self.html(pages.overview(try await data.overview(role: role)))
        }
        router.get("/dashboard/signin") { request, _ in try access.signIn(request) }
        router.get("/dashboard/diff") { request, context in
            let role = try access.authorize(request, context: context)
            return try await Self.page(role: role, pages: pages) { pages.diff(try await diff(request), role: role) }
        }
        router.get("/dashboard/file") { request, context in
            let role = try access.authorize(request, context: context)
            return try await Self.page(role: role, pages: pages) { pages.file(try await data.file(path: try Self.path(request)), role: role) }
        }
        router.get("/dashboard/audit") { request, context in
            let role = try access.authorize(request, context: context)
            return try await Self.page(role: role, pages: pages) {
                let query = request.uri.queryParameters
                let channel = query.get("channel").flatMap { $0.isEmpty ? nil : $0 }
                let token = query.get("token").flatMap { $0.isEmpty ? nil : $0 }
                if let channel, let problem = ChannelName.problem(channel) {
                    throw HTTPError(.badRequest, message: "\(channel.prefix(80)): \(problem)")
                }
                if let token, token.utf8.count > 64 { throw HTTPError(.badRequest, message: "A token's name is at most 64 bytes") }
                return pages.audit(try await data.audit(channel: channel, token: token), channel: channel, token: token, role: role)
            }
        }
        router.get("/dashboard/dashboard.css") { _, _ in Self.asset(PackageResources.dashboard_css, type: "text/css; charset=utf-8") }
        router.get("/dashboard/dashboard.js") { _, _ in Self.asset(PackageResources.dashboard_js, type: "text/javascript; charset=utf-8") }
        routes.get("/v1/admin/overview", gate: access) { _, _, role in try Self.json(try await data.overview(role: role)) }
        routes.get("/v1/admin/diff", gate: access) { request, _, _ in try Self.json(try await diff(request)) }
        routes.get("/v1/admin/file", gate: access) { request, _, _ in try Self.json(try await data.file(path: try Self.path(request))) }
        routes.get("/v1/admin/traffic", gate: access) { _, _, _ in try Self.json(data.trafficNow()) }
    }

    private func diff(_ request: Request) async throws -> DashboardData.Diff {
        guard let from = request.uri.queryParameters.get("from"), let to = request.uri.queryParameters.get("to") else {
            throw HTTPError(.badRequest, message: "Name two releases: ?from=<number or id>&to=<number or id>")
        }
        guard let diff = try await data.diff(from: from, to: to) else {
            throw HTTPError(.notFound, message: "No such release")
        }
        return diff
    }

    private static func path(_ request: Request) throws -> String {
        guard let path = request.uri.queryParameters.get("path"), !path.isEmpty else {
            throw HTTPError(.badRequest, message: "Name a file: ?path=<published path>")
        }
        return path
    }

    /// A page, or for a request it refuses (an unknown release, no path) a page that says so,
    /// with the refusal's status: a browser shows it in the dashboard's frame, not as raw JSON.
    private static func page(role: DashboardRole, pages: DashboardPage, _ make: () async throws -> String) async throws -> Response {
        do {
            return html(try await make())
        } catch let error as HTTPError where error.status.code < 500 {
            return html(pages.refusal(error.body ?? error.status.reasonPhrase, role: role), status: error.status)
        }
    }

    private static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-store",
                // The page's own script and style only: nothing inline, nothing from elsewhere.
                .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: page))
        )
    }

    /// An admin API answer: never kept by a cache, as the pages.
    private static func json(_ value: some Encodable) throws -> Response {
        var response = try Response.json(value)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
