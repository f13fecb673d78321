import DepotServer
import Foundation

extension InProcessServer {
    /// ``TestServer/withDataDirectory(_:configuration:_:)`` on a server whose requests come from
    /// `peer` (``peer``), as a live server's come from its test client's 127.0.0.1: its checks of
    /// a client's address (trusted proxies and forwarded addresses, report networks, the audit
    /// trail's client) see one.
    package static func withDataDirectory<Result: Sendable>(
        _ dataDirectory: URL,
        configuration: ServerConfiguration,
        from peer: String,
        _ body: @Sendable (InProcessServer) async throws -> Result
    ) async throws -> Result {
        try await $peer.withValue(peer) {
            try await withDataDirectory(dataDirectory, configuration: configuration, body)
        }
    }
}
