import DepotConnection
import DepotStore
import Hummingbird
import Logging
import NIOHTTP1
import ServiceLifecycle
import _NIOFileSystem

/// What a server is made of, opened once by ``buildApplication(configuration:logger:)`` and
/// wired by room: the store and catalog (``init(configuration:logger:)``), the routes
/// (``router(recorder:)``), the connection layer (``channel(routedSegments:recorder:)``) and the
/// background services (``services()``).
struct ServerParts {
    let configuration: ServerConfiguration
    let logger: Logger
    let metrics: DepotMetrics
    /// The traffic ring, kept only for the dashboard: no other answer pays for it.
    let traffic: TrafficHistory?
    let store: BlobStore
    let catalog: Catalog
    let site: PublicSite
    let content: PublishedContent
    /// Makes and keeps the pages' packs (``PagePacks``); its ``ComputeOnce`` is a service.
    let packs: PagePacks
    /// The folder kept in step with the channels, if any (`export.directory`).
    let export: StaticExport?
    let patches: PatchMaker
    /// Makes the brotli and zstd variants, in the background: a service.
    let variants: VariantMaker
    let publisher: Publisher
    let reports: ReportIntake
    /// The API's tokens, and the audit trail.
    let access: ScopedRoutes.Access
    let resolver: ContentResolver
    let responder: ResourceResponder

    /// Opens the store and the catalog, serves the public folder's record, if any, and builds the channel
    /// documents. Nothing listens yet.
    init(configuration: ServerConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        traffic = configuration.dashboard.enabled ? TrafficHistory() : nil
        metrics = DepotMetrics(traffic: traffic)
        let store = try await BlobStore.open(dataDirectory: FilePath(configuration.dataDirectory), configuration: configuration.store, logger: logger)
        let catalog = try Catalog(path: FilePath(configuration.dataDirectory).appending("catalog.sqlite").string, logger: logger)
        (self.store, self.catalog) = (store, catalog)
        let variants = VariantMaker(
            blobs: BlobIndex(catalog),
            store: store,
            variants: configuration.variants,
            metrics: VariantMetrics(registry: metrics.registry),
            chunkRead: configuration.variantChunkRead,
            logger: logger
        )
        self.variants = variants
        site = PublicSite(
            directory: try PublicDirectory(path: configuration.publicDirectory, store: store),
            store: store,
            blobs: BlobIndex(catalog),
            cacheControl: configuration.publicCacheControl,
            memoryBudget: configuration.memoryCacheBytes,
            variants: variants
        )
        try await site.start(logger: logger)
        (content, packs) = Self.content(configuration: configuration, catalog: catalog, store: store, metrics: metrics)
        export = try configuration.exportDirectory.map { directory in
            try StaticExport(directory: FilePath(directory), catalog: catalog, store: store, roots: configuration.channels.roots, logger: logger)
        }
        try await content.documents.reload()
        variants.onMade { [site, content] sha256 in
            content.variantMade(of: sha256)
            await site.variantMade(of: sha256)
        }
        let deltas = configuration.publish.deltas
        patches = PatchMaker(blobs: BlobIndex(catalog), store: store, configuration: deltas, variants: variants, metrics: metrics, logger: logger)
        responder = ResourceResponder(rangeLimits: configuration.rangeLimits)
        access = await Self.access(configuration: configuration, audit: AuditLog(catalog), logger: logger)
        let audit = access.audit
        var publisher = Publisher(
            releases: ReleaseStore(catalog),
            blobs: BlobIndex(catalog),
            rollouts: RolloutStore(catalog),
            reports: ReportLedger(catalog),
            store: store,
            content: content,
            metrics: metrics,
            configuration: configuration.publish,
            patches: patches,
            audit: audit
        )
        publisher.now = configuration.rollouts.clock
        self.publisher = publisher
        reports = ReportIntake(ledger: ReportLedger(catalog), configuration: configuration.reports, clock: configuration.rollouts.clock)
        resolver = ContentResolver(content: content, site: site)
    }

    /// The API's tokens, and the audit trail written to `log`, its first record the roots served.
    private static func access(configuration: ServerConfiguration, audit log: AuditLog, logger: Logger) async -> ScopedRoutes.Access {
        var audit = AuditTrail(log: log, logger: logger)
        audit.now = configuration.rollouts.clock
        await audit.rootsServed(configuration.channels.roots)
        return ScopedRoutes.Access(
            tokens: BearerAuthenticator(tokens: configuration.allTokens, acceptsBasic: configuration.dashboard.enabled),
            audit: audit,
            trustedProxies: configuration.trustedProxies
        )
    }

    /// What the catalog publishes, and the packs of its pages, made on request.
    private static func content(
        configuration: ServerConfiguration,
        catalog: Catalog,
        store: BlobStore,
        metrics: DepotMetrics
    ) -> (PublishedContent, PagePacks) {
        let content = PublishedContent(
            catalog: catalog,
            store: store,
            cachePolicy: configuration.cachePolicy,
            memoryBudget: configuration.memoryCacheBytes,
            cacheEntries: configuration.resourceCacheEntries,
            signer: configuration.channels
        )
        return (content, PagePacks(content: content, limits: configuration.packs, metrics: metrics))
    }

    /// The routes and their controllers (``buildRouter(recorder:sendsRequestIDs:content:api:operations:)``).
    func router(recorder: ResponseRecorder) throws -> Router<DepotRequestContext> {
        let uploads = UploadReceiver(store: store, configuration: configuration.publish)
        let content = ContentRoutes(
            resolver: resolver,
            responder: responder,
            patches: patches,
            maximumDeltaBases: configuration.publish.deltas.maximumBaseTags,
            documents: ReleaseDocumentsController(content: self.content, packs: packs, releases: self.content.releases, responder: responder)
        )
        let api = APIRoutes(
            access: access,
            files: PublishController(publisher: publisher, uploads: uploads),
            releases: ReleaseController(publisher: publisher, uploads: uploads),
            rollouts: RolloutController(publisher: publisher, gateNetworks: configuration.reports.gateNetworks),
            reports: ReportsController(intake: reports, trustedProxies: configuration.trustedProxies)
        )
        let operations = OperationsRoutes(
            health: HealthController(
                maintenance: Maintenance(catalog),
                store: store,
                site: site,
                logger: logger,
                clock: configuration.readinessClock ?? .system,
                beforeProbe: configuration.beforeReadinessProbe
            ),
            metrics: MetricsController(
                metrics: metrics,
                allowedAddresses: configuration.metricsAllowedAddresses,
                trustedProxies: configuration.trustedProxies,
                token: configuration.metricsToken
            ),
            dashboard: try traffic.map { traffic in
                DashboardController(
                    data: DashboardData(
                        catalog: catalog,
                        traffic: traffic,
                        signer: configuration.channels,
                        gateNetworks: configuration.reports.gateNetworks,
                        now: configuration.rollouts.clock
                    ),
                    access: DashboardAccess(
                        tokens: access.tokens,
                        allowedAddresses: configuration.dashboard.allowedAddresses,
                        trustedProxies: configuration.trustedProxies
                    ),
                    pages: try DashboardPage()
                )
            }
        )
        return buildRouter(recorder: recorder, sendsRequestIDs: configuration.logsRequests, content: content, api: api, operations: operations)
    }

    /// The connection layer's configuration (header limits, connection limits, direct answers,
    /// the access log), and the open-file caches and access log, services of their own.
    func channel(
        routedSegments: Set<Substring>,
        recorder: ResponseRecorder
    ) throws -> (channel: DepotHTTP1Channel.Configuration, openFiles: OpenFileCaches, accessLog: AccessLog?) {
        let openFiles = OpenFileCaches(capacity: configuration.openFilesPerEventLoop, idleTime: configuration.openFileIdleTime, logger: logger)
        let direct = DirectAnswerConfiguration(
            source: ResourceDirectAnswers(resolver: resolver, routedSegments: routedSegments, responder: responder, recorder: recorder),
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
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = configuration.headerLimits.maxFieldBytes
        decoderLimits.maxHeaderListSize = configuration.headerLimits.maxListBytes
        decoderLimits.maxHeaderFieldCount = configuration.headerLimits.maxFieldCount
        let channel = DepotHTTP1Channel.Configuration(
            decoderLimits: decoderLimits,
            limits: configuration.connectionLimits,
            clock: configuration.connectionClock ?? .system,
            connections: OpenConnections(maximum: configuration.connectionLimits.maxConnections),
            direct: configuration.directResponses ? direct : nil,
            accessLog: accessLog,
            logger: logger
        )
        return (channel, openFiles, accessLog)
    }

    /// The background services: the public folder's rescans, blob collection, patch making,
    /// channel refreshes, the export, the rollout scheduler and the report flushes.
    func services() -> [any Service] {
        var services: [any Service] = []
        services.append(
            PublicSiteRescanService(
                site: site,
                interval: configuration.publicRescanInterval,
                retry: configuration.publicScanRetry,
                beforeFirstScan: configuration.beforePublicScan,
                logger: logger
            )
        )
        services.append(
            BlobCollectionService(
                blobs: BlobIndex(catalog),
                maintenance: Maintenance(catalog),
                store: store,
                content: content,
                export: export,
                site: site,
                configuration: configuration.publish,
                metrics: metrics,
                logger: logger
            )
        )
        services.append(patches)
        services.append(packs.work)
        services.append(variants)
        services.append(ChannelRefreshService(documents: content.documents, logger: logger))
        if let export {
            services.append(ExportFollower(documents: content.documents, export: export, beforeExport: configuration.beforeExport))
        }
        services.append(RolloutScheduler(publisher: publisher, reports: reports, configuration: configuration.rollouts, logger: logger))
        services.append(ReportFlushService(intake: reports, clock: configuration.rollouts.clock, logger: logger))
        return services
    }
}
