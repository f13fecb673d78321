import AsyncHTTPClient
import NIOCore

/// Runs `body` with an HTTP client for one command, and shuts it down after.
///
/// A connection that cannot be made fails at once (no retries until the request's deadline), so
/// a wrong `--server` is one clear line, not a long wait.
func withHTTPClient<Result>(_ body: (HTTPClient) async throws -> Result) async throws -> Result {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout.connect = .seconds(10)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}
