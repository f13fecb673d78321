import DepotHTTP
import DepotStore
import Hummingbird
import Logging
import _NIOFileSystem

/// The request context of every Depot route.
public typealias DepotRequestContext = BasicRequestContext

/// Builds the Depot application: opens the store, scans the public folder once, and wires the
/// routes. Nothing listens until the application runs.
public func buildApplication(configuration: ServerConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    let store = try await BlobStore.open(dataDirectory: FilePath(configuration.dataDirectory), configuration: configuration.store, logger: logger)
    let site = PublicSite(
        directory: try PublicDirectory(path: configuration.publicDirectory, store: store),
        store: store,
        cacheControl: configuration.publicCacheControl
    )
    try await site.refresh(logger: logger)

    let router = buildRouter(site: site, responder: ResourceResponder(rangeLimits: configuration.rangeLimits))
    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: configuration.serverName),
        logger: logger
    )
    if let interval = configuration.publicRescanInterval {
        app.addServices(PublicSiteRescanService(site: site, interval: interval, logger: logger))
    }
    return app
}

/// The routes, given their dependencies, so tests build the same router.
func buildRouter(site: PublicSite, responder: ResourceResponder) -> Router<DepotRequestContext> {
    let router = Router(context: DepotRequestContext.self)
    router.add(middleware: PublicFilesMiddleware(site: site, responder: responder))
    return router
}
