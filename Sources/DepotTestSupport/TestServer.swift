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
}

extension TestServer {
    /// The publish token of test servers (``LiveServer/token``).
    package static var token: String { LiveServer.token }

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
