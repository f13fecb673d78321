import DepotCodecs
import DepotServer

extension VariantConfiguration {
    /// Settings other than the defaults (so a test server makes them) and quick to make, before
    /// the commit (so the release lists them).
    package static let quickTest = VariantConfiguration(
        brotli: .init(quality: 9, window: 22),
        zstd: .init(level: 12, longWindow: nil),
        background: false
    )
}

extension TestServer {
    /// A server of this kind publishing with `variants`, and a connection to it.
    package static func withVariants<Result: Sendable>(
        _ variants: VariantConfiguration = .quickTest,
        _ body: @Sendable (Self, inout TestServerConnection) async throws -> Result
    ) async throws -> Result {
        var configuration = ServerConfiguration()
        configuration.variants = variants
        return try await withPublishing(configuration: configuration) { server in
            try await server.withConnection { connection in try await body(server, &connection) }
        }
    }
}
