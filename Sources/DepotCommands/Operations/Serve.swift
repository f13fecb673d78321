import ArgumentParser
import Configuration
import DepotFiles
import DepotServer
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals
import _NIOFileSystem

extension Depot {
    /// `depot serve`: runs the server until SIGINT or SIGTERM.
    struct Serve: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the Depot server.",
            discussion: """
                Each option can also be set in the environment (DEPOT_HTTP_PORT, DEPOT_PUBLIC_PATH, …) \
                or in a JSON config file; the command line wins over the environment, which wins over the file.
                """
        )

        @Option(help: "Address to listen on (http.host; default 127.0.0.1).")
        var host: String?

        @Option(help: "Port to listen on, 0 for any free port (http.port; default 8080).")
        var port: Int?

        @Option(name: .customLong("public"), help: "Folder served as it is (public.path; default ./public).")
        var publicDirectory: String?

        @Option(name: .customLong("data"), help: "Data folder (data.path; default ./data).")
        var dataDirectory: String?

        @Option(help: "JSON config file (or DEPOT_CONFIG).")
        var config: PathArgument?

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (log.level; default info).")
        var logLevel: String?

        func run(in environment: CommandEnvironment) async throws {
            let reader = try await makeReader(in: environment)
            let levelName = reader.string(forKey: "log.level", default: "info")
            guard let level = Logger.Level(rawValue: levelName) else {
                throw ValidationError("Unknown log level \"\(levelName)\"")
            }
            var logger = Logger(label: "depot")
            logger.logLevel = level
            let configuration = try ServerSettings.configuration(reader, in: environment)
            // Before the data folder is made: a first start in the wrong folder leaves nothing.
            // The default ./public alone is made when missing, so that the quick start works
            // with only the binary; a folder named on purpose must exist.
            // A folder there is opened (a file is not, and a file in its place is not replaced).
            func isFolder() -> Bool { (try? ContainedFolder(root: configuration.publicDirectory, creating: false)) != nil }
            if reader.string(forKey: "public.path") == nil, !isFolder(), (try? ContainedFolder(root: configuration.publicDirectory)) != nil {
                logger.notice(
                    "Made the public folder, empty: put files in it to serve them at /",
                    metadata: ["public": "\(configuration.publicDirectory)"]
                )
            }
            guard isFolder() else {
                let folder = environment.asGiven(configuration.publicDirectory)
                environment.printError(
                    "Error: The public folder \(folder) does not exist: create it (mkdir \(folder)), "
                        + "or serve another with --public DIR"
                )
                throw ExitCode.failure
            }
            if configuration.mallocArenas > 0 { Heap.limitArenas(to: configuration.mallocArenas) }
            StartupSummary(configuration).log(to: logger)
            let app = try await buildApplication(configuration: configuration, logger: logger)
            // SIGTERM and SIGINT stop accepting connections and let requests under way finish, for
            // at most http.shutdownGraceSeconds; then they are cut.
            var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            group.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
            try await ServiceGroup(configuration: group).run()
            logger.info("Depot stopped")
        }

        private func makeReader(in environment: CommandEnvironment) async throws -> ConfigReader {
            var values: [AbsoluteConfigKey: ConfigValue] = [:]
            if let host { values["http.host"] = .init(.string(host), isSecret: false) }
            if let port { values["http.port"] = .init(.int(port), isSecret: false) }
            if let publicDirectory { values["public.path"] = .init(.string(publicDirectory), isSecret: false) }
            if let dataDirectory { values["data.path"] = .init(.string(dataDirectory), isSecret: false) }
            if let logLevel { values["log.level"] = .init(.string(logLevel), isSecret: false) }
            return try await ServerSettings.reader(commandLine: values, configFile: config, in: environment)
        }
    }
}
