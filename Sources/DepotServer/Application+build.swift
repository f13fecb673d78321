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
    metrics: MetricsController,
    sendsRequestIDs: Bool,
    resolver: ContentResolver,
    maximumDeltaBases: Int,
    patches: PatchMaker,
    access: ScopedRoutes.Access,
    files: PublishController,
    releases: ReleaseController,
    rollouts: RolloutController,
    reports: ReportsController,
    documents: ReleaseDocumentsController,
    health: HealthController,
    dashboard: DashboardController? = nil,
    responder: ResourceResponder
) -> Router<DepotRequestContext> {
    let router = Router(context: DepotRequestContext.self)
    if sendsRequestIDs { router.add(middleware: RequestIDMiddleware()) }
    router.add(middleware: RequestCounterMiddleware(recorder: recorder))
    router.add(middleware: PublicFilesMiddleware(resolver: resolver, responder: responder))
    ContentController(
        resolver: resolver,
        responder: responder,
        metrics: metrics.metrics,
        maximumDeltaBases: maximumDeltaBases,
        patches: patches
    ).addRoutes(to: router)
    // Every route of the /v1 group is added through ScopedRoutes, with the scope it needs,
    // checked before its handler. Outside it: content and documents (public), POST /v1/reports
    // (open to installs, rate-limited), the health probes, /metrics (its own token and
    // addresses) and the dashboard (its own roles); a table in RouteAuthorizationTests states each.
    let publishing = ScopedRoutes(group: router.group("v1"), access: access)
    files.addRoutes(to: publishing, refusingOthersIn: router)
    releases.addRoutes(to: publishing)
    rollouts.addRoutes(to: publishing)
    AuditController(catalog: access.audit.catalog).addRoutes(to: publishing)
    reports.addRoutes(to: router)
    documents.addRoutes(to: router)
    health.addRoutes(to: router)
    metrics.addRoutes(to: router)
    dashboard?.addRoutes(to: router)
    return router
}
