import DepotConnection
import DepotServer
import Foundation
import Hummingbird
import Logging

/// The one way a test builds a Depot application, whether it then listens on a socket
/// (``LiveServer``) or answers through the router in process (``InProcessServer``): the same
/// configuration, folders, request counter and route list either way.
enum TestApplication {
    /// `configuration` as tests run it: on 127.0.0.1 and a free port, with these folders, making
    /// no variants unless the test asks (Brotli at quality 11 costs seconds a megabyte), and with
    /// connection deadlines judged by the configuration's clock, or by one that never moves
    /// (deadlines are the subject of the tests that give a clock, ConnectionLimitsTests; for
    /// every other test, a deadline that passed because the machine was slow is noise).
    static func configuration(_ configuration: ServerConfiguration, publicDirectory: URL, dataDirectory: URL) -> ServerConfiguration {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.variants = .testing(configuration.variants)
        configuration.publicDirectory = publicDirectory.path
        configuration.dataDirectory = dataDirectory.path
        configuration.connectionClock = configuration.connectionClock ?? .stopped
        return configuration
    }

    /// The application on `configuration` as ``configuration(_:publicDirectory:dataDirectory:)``
    /// makes it, with a counter of its requests and the list of its routes.
    static func build(
        _ configuration: ServerConfiguration,
        publicDirectory: URL,
        dataDirectory: URL
    ) async throws -> (application: some ApplicationProtocol, requests: RequestCounter, routes: RouteList) {
        let configuration = Self.configuration(configuration, publicDirectory: publicDirectory, dataDirectory: dataDirectory)
        let requests = RequestCounter()
        let routes = RouteList()
        let logger = Self.logger ?? quietLogger
        let application = try await buildApplication(configuration: configuration, logger: logger, requestCounter: requests, routes: routes)
        return (application, requests, routes)
    }

    /// A temporary folder with an empty `public/` that `prepare` fills, and a `data/` path, for
    /// `body`; removed after.
    static func withFolders<Result: Sendable>(
        prepare: (URL) throws -> Void,
        _ body: (_ publicDirectory: URL, _ dataDirectory: URL) async throws -> Result
    ) async throws -> Result {
        try await withTemporaryDirectory { root in
            let publicDirectory = root.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: publicDirectory, withIntermediateDirectories: true)
            try prepare(publicDirectory)
            return try await body(publicDirectory, root.appendingPathComponent("data"))
        }
    }

    /// The `/metrics` token of in-process servers: their requests come from no address, so the
    /// address allow-list would refuse them all.
    static let metricsToken = "test-metrics-token"

    /// The logger of the applications built in its scope (``ServerLog``); none: ``quietLogger``.
    @TaskLocal static var logger: Logger?

    /// Warnings and errors only.
    static var quietLogger: Logger {
        var logger = Logger(label: "depot-test")
        logger.logLevel = .warning
        return logger
    }
}
