import DepotServer
import Foundation
import HummingbirdTesting
import NIOCore

/// A Depot application built as ``LiveServer`` builds it (``TestApplication``: the same
/// configuration, folders, request counter and route list), answering through Hummingbird's
/// in-process router test client: no socket and no connection layer (deadlines, direct answers,
/// the access log), so a test of API behaviour runs fast and sees only the application. Its
/// requests come from no address unless a test gives one (``peer``): `/metrics` needs a token
/// (``TestApplication/metricsToken``, unless the configuration gives one), which
/// ``TestHTTPConnection/metric(_:)`` sends.
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

    /// The address the requests of the servers started in its scope come from (their router's
    /// context: ``PeerApplication``), as a live server's come from its test client's 127.0.0.1;
    /// none by default.
    @TaskLocal package static var peer: String?

    /// Runs the application (``TestApplication``) in process with these folders for `body`
    /// (``TestServer``'s `with…` give every test its folders and wait for the scan).
    package static func run<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.metricsToken = configuration.metricsToken ?? TestApplication.metricsToken
        let (app, requests, routes) = try await TestApplication.build(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory)
        let peer = try Self.peer.map { try SocketAddress(ipAddress: $0, port: 40_000) }
        return try await PeerApplication(base: app, peer: peer).test(.router) { client in
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
                return try await body(server)
            }
        }
    }

    /// Runs `body` with a connection to the router: what `RawHTTPConnection.with(port:)` is to a
    /// ``LiveServer``. Connections share nothing but the application, so several may be used at once.
    public func connection<Result>(_ body: (inout InProcessConnection) async throws -> Result) async throws -> Result {
        var connection = InProcessConnection(client: client)
        return try await body(&connection)
    }
}
