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

    /// Starts a server that accepts ``token`` for publishing, with a public folder `prepare` fills
    /// (empty by default).
    public static func withPublishing<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (LiveServer) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.publish.tokens = [token]
        return try await with(configuration: configuration, prepare: prepare, body)
    }

    /// Starts a server on `configuration` as given but for its address and public folder, keeping
    /// its data in `dataDirectory` (which the caller owns, e.g. a small mounted file system).
    public static func withDataDirectory<Result: Sendable>(
        _ dataDirectory: URL,
        configuration: ServerConfiguration,
        _ body: @Sendable (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { root in
            try await run(configuration, publicDirectory: root, dataDirectory: dataDirectory, body)
        }
    }

    /// Runs the application (``TestApplication``) on 127.0.0.1 and a free port with these folders
    /// for `body`, once it serves its public folder (unless the configuration holds that scan back).
    static func run<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (LiveServer) async throws -> Result
    ) async throws -> Result {
        let (app, requests, routes) = try await TestApplication.build(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory)
        // A test that holds the first scan back waits for it itself.
        let waitsForScan = configuration.beforePublicScan == nil
        return try await app.test(.live) { client in
            if waitsForScan {
                try await RawHTTPConnection.with(port: client.port!) { try await $0.waitForPublicFolder() }
            }
            return try await body(
                LiveServer(port: client.port!, publicDirectory: publicDirectory, dataDirectory: dataDirectory, requests: requests, routes: routes)
            )
        }
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Creates a temporary public folder, lets `prepare` fill it, starts the server on a free
    /// port of 127.0.0.1, runs `body`, and stops the server. `configuration` is used as given but
    /// for its address and folders.
    public static func with<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await TestApplication.withFolders(prepare: prepare) { publicDirectory, dataDirectory in
            try await run(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory, body)
        }
    }
}
