import DepotServer
import Foundation
import HummingbirdTesting

/// A Depot application built as ``LiveServer`` builds it (``TestApplication``: the same
/// configuration, folders, request counter and route list), answering through Hummingbird's
/// in-process router test client: no socket and no connection layer (deadlines, direct answers,
/// the access log), so a test of API behaviour runs fast and sees only the application. Its
/// requests come from no address: `/metrics` needs a token (``TestApplication/metricsToken``,
/// unless the configuration gives one), which ``TestHTTPConnection/metric(_:)`` sends.
public struct InProcessServer: Sendable {
    /// Its public folder.
    public let publicDirectory: URL
    /// Its data folder.
    public let dataDirectory: URL
    /// Every request its router has answered.
    package let requests: RequestCounter
    /// The router's routes, as `METHOD /path`.
    package let routes: RouteList
    let client: any TestClientProtocol
    /// `http://host` (no trailing slash), the host a `DepotClient` reaches it at (``url(_:)``).
    let base: String

    /// Builds the application on `configuration` with a public folder `prepare` fills (empty by
    /// default), runs its services, and runs `body` once it serves its public folder (unless the
    /// configuration holds that scan back).
    public static func with<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        try await TestApplication.withFolders(prepare: prepare) { publicDirectory, dataDirectory in
            try await run(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory, body)
        }
    }

    /// Builds the application on `configuration` as given but for its public folder, keeping its
    /// data in `dataDirectory` (which the caller owns, e.g. a catalog written as an older Depot
    /// wrote it).
    public static func withDataDirectory<Result: Sendable>(
        _ dataDirectory: URL,
        configuration: ServerConfiguration,
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { root in
            try await run(configuration, publicDirectory: root, dataDirectory: dataDirectory, body)
        }
    }

    /// Runs the application (``TestApplication``) in process with these folders for `body`, once
    /// it serves its public folder (unless the configuration holds that scan back).
    static func run<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.metricsToken = configuration.metricsToken ?? TestApplication.metricsToken
        let (app, requests, routes) = try await TestApplication.build(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory)
        let waitsForScan = configuration.beforePublicScan == nil
        return try await app.test(.router) { client in
            // A DepotClient reaches it at a host of its own, for as long as it runs.
            try await InProcessURLProtocol.serving(client) { base in
                let server = InProcessServer(
                    publicDirectory: publicDirectory,
                    dataDirectory: dataDirectory,
                    requests: requests,
                    routes: routes,
                    client: client,
                    base: base
                )
                if waitsForScan {
                    try await server.connection { try await $0.waitForPublicFolder() }
                }
                return try await body(server)
            }
        }
    }

    /// ``with(configuration:prepare:_:)`` on a server that accepts ``LiveServer/token`` for
    /// publishing.
    public static func withPublishing<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.publish.tokens = [LiveServer.token]
        return try await with(configuration: configuration, prepare: prepare, body)
    }

    /// Runs `body` with a connection to the router: what `RawHTTPConnection.with(port:)` is to a
    /// ``LiveServer``. Connections share nothing but the application, so several may be used at once.
    public func connection<Result>(_ body: (inout InProcessConnection) async throws -> Result) async throws -> Result {
        var connection = InProcessConnection(client: client)
        return try await body(&connection)
    }
}
