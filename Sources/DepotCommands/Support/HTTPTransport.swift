import AsyncHTTPClient
import NIOCore

/// How a command sends a request to a server: AsyncHTTPClient's request and response, so that
/// a test can answer from a server in the same process (both bodies can be whole or streamed).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whose body may still be arriving.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse
}

/// The transports over AsyncHTTPClient.
public enum HTTPTransports {
    /// Runs `body` with an HTTP client for one command, and shuts it down after.
    ///
    /// A connection that cannot be made fails at once (no retries until the request's deadline),
    /// so a wrong `--server` is one clear line, not a long wait.
    public static func withClient<Result>(_ body: (any HTTPTransport) async throws -> Result) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(ClientTransport(client: client))
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// Requests sent by an AsyncHTTPClient.
struct ClientTransport: HTTPTransport {
    let client: HTTPClient

    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        try await client.execute(request, timeout: timeout)
    }
}
