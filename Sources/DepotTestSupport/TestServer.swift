import DepotServer
import Foundation

/// A Depot server a test syncs from and sends requests to: one on a socket (``LiveServer``) or
/// the application in process (``InProcessServer``), with the same calls, so that a suite's
/// helpers serve both, and a suite whose subject is the client's logic needs no socket.
package protocol TestServer: Sendable {
    /// Its public folder.
    var publicDirectory: URL { get }
    /// Its data folder.
    var dataDirectory: URL { get }
    /// Every request it has answered.
    var requests: RequestCounter { get }
    /// `path` on this server, as a `DepotClient` reaches it.
    func url(_ path: String) -> String
    /// Sends one request and reads its response (a live server: on a connection of its own).
    func send(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawHTTPResponse
    /// Runs the application (``TestApplication``) with these folders for `body`; `configuration`
    /// is used as given but for its address and folders. ``serve(_:publicDirectory:dataDirectory:_:)``
    /// waits for the public folder first.
    static func run<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result
}

extension TestServer {
    /// The publish token of test servers (``LiveServer/token``).
    package static var token: String { LiveServer.token }

    /// Creates a temporary public folder, lets `prepare` fill it, runs the server, runs `body`
    /// once it serves its public folder (unless the configuration holds that scan back: such a
    /// test waits for it itself), and stops the server.
    package static func with<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result {
        try await TestApplication.withFolders(prepare: prepare) { publicDirectory, dataDirectory in
            try await serve(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory, body)
        }
    }

    /// ``with(configuration:prepare:_:)`` on a server that accepts ``LiveServer/token`` for
    /// publishing.
    package static func withPublishing<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        prepare: (URL) throws -> Void = { _ in },
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.publish.tokens = [token]
        return try await with(configuration: configuration, prepare: prepare, body)
    }

    /// Runs a server on `configuration` as given but for its address and public folder (empty),
    /// keeping its data in `dataDirectory`, which the caller owns (a small mounted file system, a
    /// catalog written as an older Depot wrote it).
    package static func withDataDirectory<Result: Sendable>(
        _ dataDirectory: URL,
        configuration: ServerConfiguration,
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { root in
            try await serve(configuration, publicDirectory: root, dataDirectory: dataDirectory, body)
        }
    }

    /// ``run(_:publicDirectory:dataDirectory:_:)``, and `body` once the server serves its public
    /// folder (unless the configuration holds that scan back: such a test waits for it itself).
    private static func serve<Result: Sendable>(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL,
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result {
        let waitsForScan = configuration.beforePublicScan == nil
        return try await run(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory) { server in
            if waitsForScan { try await server.withConnection { try await $0.waitForPublicFolder() } }
            return try await body(server)
        }
    }

    /// Runs `body` with a connection whose requests go to this server.
    package func withConnection<Result>(_ body: (inout TestServerConnection) async throws -> Result) async throws -> Result {
        var connection = TestServerConnection(server: self)
        return try await body(&connection)
    }
}

/// The requests of a ``TestServer``, as a ``TestHTTPConnection``: what it offers
/// (``TestHTTPConnection/releaseFiles(channel:)``…) works on either kind of server.
package struct TestServerConnection: TestHTTPConnection {
    let server: any TestServer

    package mutating func request(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> RawHTTPResponse {
        try await server.send(method, target, headers: headers, body: body)
    }
}

extension LiveServer: TestServer {
    package func send(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawHTTPResponse {
        try await RawHTTPConnection.with(port: port) { try await $0.request(method, target, headers: headers, body: body) }
    }
}

extension InProcessServer: TestServer {
    /// `path` on this server, as a `DepotClient` reaches it: a host of its own, whose requests
    /// ``InProcessURLProtocol`` answers from the router, with no socket.
    public func url(_ path: String) -> String { base + path }

    package func send(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawHTTPResponse {
        try await connection { try await $0.request(method, target, headers: headers, body: body) }
    }
}
