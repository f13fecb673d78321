import AsyncHTTPClient
import DepotCommands
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// How a `depot` command run in process (``InProcessCLI``) sends its requests: to the host of an
/// ``InProcessServer`` that ``InProcessCLI`` runs, through that server's router
/// (``InProcessServer/connection(_:)``: the request body whole, the answer whole, no socket); to
/// any other host (an nginx, a server on a socket), through `network`, a real HTTP client.
struct InProcessTransport: HTTPTransport {
    /// The transport for hosts that are not in process.
    let network: any HTTPTransport

    /// The servers ``InProcessCLI`` runs now, by host.
    private static let servers = Mutex<[String: InProcessServer]>([:])

    /// Runs `body` with `server` answering this transport's requests to its host.
    static func serving<Result>(_ server: InProcessServer, _ body: () async throws -> Result) async throws -> Result {
        let host = URL(string: server.url(""))?.host ?? ""
        servers.withLock { $0[host] = server }
        defer { _ = servers.withLock { $0.removeValue(forKey: host) } }
        return try await body()
    }

    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        guard let url = URL(string: request.url), let server = Self.servers.withLock({ $0[url.host ?? ""] }) else {
            return try await network.execute(request, timeout: timeout)
        }
        var body: [UInt8]?
        if let requestBody = request.body {
            var collected: [UInt8] = []
            for try await chunk in requestBody { collected += chunk.readableBytesView }
            body = collected
        }
        var headers = request.headers.map { ($0.name, $0.value) }
        // What an HTTP client sends with a body of known length.
        if let body, !request.headers.contains(name: "Content-Length") { headers.append(("Content-Length", "\(body.count)")) }
        let answer = try await server.connection { try await $0.request(request.method.rawValue, Self.target(of: url), headers: headers, body: body) }
        var fields = HTTPHeaders()
        for (name, value) in answer.fields { fields.add(name: name, value: value) }
        return HTTPClientResponse(
            status: HTTPResponseStatus(statusCode: answer.status),
            headers: fields,
            body: .bytes(ByteBuffer(bytes: answer.body))
        )
    }

    /// The request target: the URL's path and query as the command wrote them.
    private static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }
}
