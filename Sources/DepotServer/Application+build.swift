import DepotConnection
import Hummingbird
import HummingbirdCore
import Logging

/// Builds the Depot application: opens the store and the catalog, scans the public folder once,
/// and wires the routes. Nothing listens until the application runs.
public func buildApplication(configuration: ServerConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    try await buildApplication(configuration: configuration, logger: logger, requestCounter: nil)
}

/// ``buildApplication(configuration:logger:)`` for the package's tests: `requestCounter` counts
/// every answered request by raw path (never in production, where a map keyed by whatever paths
/// clients send would only grow); `routes` gets the router's routes.
package func buildApplication(
    configuration: ServerConfiguration,
    logger: Logger,
    requestCounter: RequestCounter?,
    routes: RouteList? = nil
) async throws -> some ApplicationProtocol {
    let parts = try await ServerParts(configuration: configuration, logger: logger)
    let recorder = ResponseRecorder(counter: requestCounter, metrics: parts.metrics)
    let router = try parts.router(recorder: recorder)
    routes?.record(router.routes.map { "\($0.method) \($0.path)" })
    let (channel, openFiles, accessLog) = try parts.channel(routedSegments: router.routedSegments, recorder: recorder)
    var app = Application(
        router: router,
        server: HTTPServerBuilder { responder in DepotHTTP1Channel(responder: responder, configuration: channel) },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: configuration.serverName),
        logger: logger
    )
    if configuration.directResponses { app.addServices(openFiles) }
    if let accessLog { app.addServices(accessLog.writer) }
    for service in parts.services() { app.addServices(service) }
    return app
}

/// The routes, given their dependencies, so tests build the same router.
func buildRouter(
    recorder: ResponseRecorder,
    sendsRequestIDs: Bool,
    content: ContentRoutes,
    api: APIRoutes,
    operations: OperationsRoutes
) -> Router<DepotRequestContext> {
    let router = Router(context: DepotRequestContext.self)
    if sendsRequestIDs { router.add(middleware: RequestIDMiddleware()) }
    router.add(middleware: RequestCounterMiddleware(recorder: recorder))
    router.add(middleware: NotFoundMiddleware())
    router.add(middleware: PublicFilesMiddleware(resolver: content.resolver, responder: content.responder))
    ContentController(
        resolver: content.resolver,
        responder: content.responder,
        metrics: operations.metrics.metrics,
        maximumDeltaBases: content.maximumDeltaBases,
        patches: content.patches
    ).addRoutes(to: router)
    // Every route of the /v1 group is added through ScopedRoutes, with the scope it needs,
    // checked before its handler, and so are /metrics (its own token or addresses) and the admin
    // API (a read token or an address), behind their gates. Outside it: content and documents
    // (public), POST /v1/reports (open to installs, rate-limited), the health probes and the
    // dashboard's pages (its own roles); a table in RouteAuthorizationTests states each.
    let publishing = ScopedRoutes(router: router, access: api.access)
    api.files.addRoutes(to: publishing, refusingOthersIn: router)
    api.releases.addRoutes(to: publishing)
    api.rollouts.addRoutes(to: publishing)
    AuditController(log: api.access.audit.log).addRoutes(to: publishing)
    api.reports.addRoutes(to: router)
    content.documents.addRoutes(to: router)
    operations.health.addRoutes(to: router)
    operations.metrics.addRoutes(to: publishing)
    operations.dashboard?.addRoutes(to: publishing)
    return router
}
