import DepotConnection
import DepotHTTP
import DepotStore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import _NIOFileSystem

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
    // The traffic ring is kept only for the dashboard: no other answer pays for it.
    let traffic = configuration.dashboard.enabled ? TrafficHistory() : nil
    let metrics = DepotMetrics(traffic: traffic)
    let store = try await BlobStore.open(dataDirectory: FilePath(configuration.dataDirectory), configuration: configuration.store, logger: logger)
    let catalog = try Catalog(path: FilePath(configuration.dataDirectory).appending("catalog.sqlite").string, logger: logger)
    let site = PublicSite(
        directory: try PublicDirectory(path: configuration.publicDirectory, store: store),
        store: store,
        catalog: catalog,
        cacheControl: configuration.publicCacheControl,
        memoryBudget: configuration.memoryCacheBytes
    )
    let publicSiteNeedsScan = try await site.start(logger: logger)
    let content = PublishedContent(
        catalog: catalog,
        store: store,
        cachePolicy: configuration.cachePolicy,
        memoryBudget: configuration.memoryCacheBytes,
        cacheEntries: configuration.resourceCacheEntries,
        signer: configuration.channels,
        export: try configuration.exportDirectory.map { directory in
            try StaticExport(directory: FilePath(directory), catalog: catalog, store: store, roots: configuration.channels.roots, logger: logger)
        }
    )
    try await content.reloadChannels()
    let patches = PatchMaker(catalog: catalog, store: store, configuration: configuration.publish.deltas, metrics: metrics, logger: logger)
    let responder = ResourceResponder(rangeLimits: configuration.rangeLimits)

    var publisher = Publisher(
        catalog: catalog,
        store: store,
        content: content,
        metrics: metrics,
        configuration: configuration.publish,
        patches: patches
    )
    publisher.now = configuration.rollouts.clock
    let reports = ReportIntake(catalog: catalog, configuration: configuration.reports, clock: configuration.rollouts.clock)
    let publishers = BearerAuthenticator(tokens: configuration.publish.tokens, acceptsBasic: configuration.dashboard.enabled)
    let uploads = UploadReceiver(store: store, configuration: configuration.publish)
    let resolver = ContentResolver(content: content, site: site)
    let recorder = ResponseRecorder(counter: requestCounter, metrics: metrics)
    let router = buildRouter(
        recorder: recorder,
        metrics: MetricsController(
            metrics: metrics,
            allowedAddresses: configuration.metricsAllowedAddresses,
            trustedProxies: configuration.trustedProxies,
            token: configuration.metricsToken
        ),
        sendsRequestIDs: configuration.logsRequests,
        resolver: resolver,
        maximumDeltaBases: configuration.publish.deltas.maximumBaseTags,
        patches: patches,
        publishers: publishers,
        files: PublishController(publisher: publisher, uploads: uploads),
        releases: ReleaseController(publisher: publisher, uploads: uploads),
        rollouts: RolloutController(publisher: publisher),
        reports: ReportsController(intake: reports, trustedProxies: configuration.trustedProxies),
        documents: ReleaseDocumentsController(content: content, catalog: catalog, responder: responder),
        health: HealthController(catalog: catalog, store: store, logger: logger),
        dashboard: try traffic.map { traffic in
            DashboardController(
                data: DashboardData(catalog: catalog, traffic: traffic, signer: configuration.channels),
                access: DashboardAccess(
                    publishers: publishers,
                    readers: BearerAuthenticator(tokens: configuration.dashboard.readTokens),
                    allowedAddresses: configuration.dashboard.allowedAddresses,
                    trustedProxies: configuration.trustedProxies
                ),
                pages: try DashboardPage()
            )
        },
        responder: responder
    )
    routes?.record(router.routes.map { "\($0.method) \($0.path)" })
    let openFiles = OpenFileCaches(capacity: configuration.openFilesPerEventLoop, idleTime: configuration.openFileIdleTime, logger: logger)
    let direct = DirectAnswerConfiguration(
        source: ResourceDirectAnswers(resolver: resolver, routedSegments: router.routedSegments, responder: responder, recorder: recorder),
        serverName: configuration.serverName,
        openFiles: openFiles,
        requestID: { RequestID().description }
    )
    let accessLog =
        try configuration.logsRequests
        ? AccessLog(
            writer: AccessLogWriter(configuration: configuration.accessLog, dropped: metrics.recordAccessLogDropped, logger: logger),
            format: configuration.accessLog.format,
            trustedProxies: configuration.trustedProxies
        ) : nil
    let openConnections = OpenConnections(maximum: configuration.connectionLimits.maxConnections)
    var decoderLimits = NIOHTTPDecoderLimitConfiguration()
    decoderLimits.maxHeaderFieldSize = configuration.headerLimits.maxFieldBytes
    decoderLimits.maxHeaderListSize = configuration.headerLimits.maxListBytes
    decoderLimits.maxHeaderFieldCount = configuration.headerLimits.maxFieldCount
    let channel = DepotHTTP1Channel.Configuration(
        decoderLimits: decoderLimits,
        limits: configuration.connectionLimits,
        clock: configuration.connectionClock ?? .system,
        connections: openConnections,
        direct: configuration.directResponses ? direct : nil,
        accessLog: accessLog,
        logger: logger
    )
    var app = Application(
        router: router,
        server: HTTPServerBuilder { responder in DepotHTTP1Channel(responder: responder, configuration: channel) },
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: configuration.serverName),
        logger: logger
    )
    if configuration.directResponses { app.addServices(openFiles) }
    if let accessLog { app.addServices(accessLog.writer) }
    if configuration.publicRescanInterval != nil || publicSiteNeedsScan {
        let interval = configuration.publicRescanInterval
        app.addServices(PublicSiteRescanService(site: site, interval: interval, refreshesFirst: publicSiteNeedsScan, logger: logger))
    }
    app.addServices(
        BlobCollectionService(
            catalog: catalog,
            store: store,
            content: content,
            site: site,
            configuration: configuration.publish,
            metrics: metrics,
            logger: logger
        )
    )
    app.addServices(patches)
    app.addServices(ChannelRefreshService(content: content, signer: configuration.channels, logger: logger))
    app.addServices(RolloutScheduler(publisher: publisher, reports: reports, configuration: configuration.rollouts, logger: logger))
    app.addServices(ReportFlushService(intake: reports, clock: configuration.rollouts.clock, logger: logger))
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
    publishers: BearerAuthenticator,
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
    // Every route of the /v1 group needs a publish token, checked by the group's middleware
    // before any handler. Outside it: content and documents (public), POST /v1/reports (open to
    // installs, rate-limited), the health probes, /metrics (its own token and addresses) and the
    // dashboard (its own roles); a table in RouteAuthorizationTests states each.
    let publishing = router.group("v1").add(middleware: PublishAuthorization(authenticator: publishers))
    files.addRoutes(to: publishing, refusingOthersIn: router)
    releases.addRoutes(to: publishing)
    rollouts.addRoutes(to: publishing)
    reports.addRoutes(to: router)
    documents.addRoutes(to: router)
    health.addRoutes(to: router)
    metrics.addRoutes(to: router)
    dashboard?.addRoutes(to: router)
    return router
}
