import ArgumentParser
import Configuration
import DepotServer
import _NIOFileSystem

/// Where the server's settings come from, for every command that reads them (`serve`,
/// `export`): the command line, then the environment (`DEPOT_` prefix), then the JSON config
/// file, then the defaults. The environment and the folders are the command's
/// (``CommandEnvironment``): a relative config file, public or data folder is in its folder.
public enum ServerSettings {
    /// The reader of the settings: `values` from the command line, then the environment's
    /// `DEPOT_` variables, then the config file (`configFile`, else `DEPOT_CONFIG`).
    static func reader(
        commandLine values: [AbsoluteConfigKey: ConfigValue],
        configFile: PathArgument?,
        in environment: CommandEnvironment
    ) async throws -> ConfigReader {
        let variables = EnvironmentVariablesProvider(environmentVariables: environment.variables)
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: values),
            variables.prefixKeys(with: "depot"),
        ]
        if let file = configFile ?? ConfigReader(provider: variables).string(forKey: "depot.config").map({ PathArgument($0) }) {
            let path = file.path(in: environment)
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(path)))
            } catch {
                throw ValidationError("Cannot read the config file \(file): \(error)")
            }
        }
        return ConfigReader(providers: providers)
    }

    /// The configuration `depot serve` would run on in `environment`, with no option given:
    /// the environment's variables, then `DEPOT_CONFIG`'s file, then the defaults.
    public static func configuration(in environment: CommandEnvironment) async throws -> ServerConfiguration {
        try configuration(try await reader(commandLine: [:], configFile: nil, in: environment), in: environment)
    }

    /// The configuration of a command that works on the server's data folder (`export`,
    /// `backup`): its `--data` (when given) before the environment's variables and `configFile`.
    static func configuration(
        dataDirectory: String?,
        configFile: PathArgument?,
        in environment: CommandEnvironment
    ) async throws -> ServerConfiguration {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let dataDirectory { values["data.path"] = .init(.string(dataDirectory), isSecret: false) }
        return try configuration(try await reader(commandLine: values, configFile: configFile, in: environment), in: environment)
    }

    /// The server's configuration, or a one-line error naming the bad setting; its public and
    /// data folders in `environment`'s folder when relative.
    static func configuration(_ reader: ConfigReader, in environment: CommandEnvironment) throws -> ServerConfiguration {
        do {
            var configuration = try ServerConfiguration(reader: reader)
            configuration.publicDirectory = environment.resolve(configuration.publicDirectory)
            configuration.dataDirectory = environment.resolve(configuration.dataDirectory)
            return configuration
        } catch let error as ConfigurationError {
            throw ValidationError(error.message)
        }
    }
}
