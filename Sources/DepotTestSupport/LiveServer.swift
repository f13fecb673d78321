import DepotConnection
import DepotServer
import Foundation
import HummingbirdTesting

/// A Depot server running on 127.0.0.1 for the length of a test, over a real socket.
public struct LiveServer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// Its public folder.
    public let publicDirectory: URL
    /// Its data folder.
    public let dataDirectory: URL
    /// Every request it has answered.
    package let requests: RequestCounter
    /// The router's routes, as `METHOD /path`.
    package let routes: RouteList

    /// The publish token of servers started with ``withPublishing(configuration:prepare:_:)``.
    public static let token = "test-token-5f1c"

    /// Runs the application (``TestApplication``) on 127.0.0.1 and a free port with these folders
    /// for `body` (``TestServer``'s `with…` give every test its folders and wait for the scan).
    package static func run<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (LiveServer) async throws -> Result
    ) async throws -> Result {
        let (app, requests, routes) = try await TestApplication.build(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory)
        return try await app.test(.live) { client in
            try await body(
                LiveServer(port: client.port!, publicDirectory: publicDirectory, dataDirectory: dataDirectory, requests: requests, routes: routes)
            )
        }
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
