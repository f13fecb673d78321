import ArgumentParser
import Configuration
import DepotServer
import _NIOFileSystem

/// Where the server's settings come from, for every command that reads them (`serve`,
/// `export`): the command line, then the environment (`DEPOT_` prefix), then the JSON config
/// file, then the defaults.
enum ServerSettings {
    static func reader(commandLine values: [AbsoluteConfigKey: ConfigValue], configFile: String?) async throws -> ConfigReader {
        let environment = EnvironmentVariablesProvider()
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: values),
            environment.prefixKeys(with: "depot"),
        ]
        if let path = configFile ?? ConfigReader(provider: environment).string(forKey: "depot.config") {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(path)))
            } catch {
                throw ValidationError("Cannot read the config file \(path): \(error)")
            }
        }
        return ConfigReader(providers: providers)
    }

    /// The server's configuration, or a one-line error naming the bad setting.
    static func configuration(_ reader: ConfigReader) throws -> ServerConfiguration {
        do {
            return try ServerConfiguration(reader: reader)
        } catch let error as ConfigurationError {
            throw ValidationError(error.message)
        }
    }
}
