import ArgumentParser
import Foundation

/// `--server`, shared by the commands that talk to a running Depot.
struct ServerOptions: ParsableArguments {
    @Option(help: "The Depot server, e.g. http://127.0.0.1:8080 (or DEPOT_SERVER).")
    var server: String?

    /// `--server`, else `DEPOT_SERVER` in `environment`, as given.
    func named(in environment: CommandEnvironment) -> String? {
        server ?? environment.variables["DEPOT_SERVER"]
    }

    /// The server's base URL, without a trailing slash.
    func baseURL(in environment: CommandEnvironment) throws -> String {
        guard let text = named(in: environment) else {
            throw ValidationError("Name the server with --server URL or DEPOT_SERVER")
        }
        return try Self.baseURL(of: text)
    }

    /// `text`, an http:// or https:// URL, without a trailing slash.
    static func baseURL(of text: String) throws -> String {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--server must be an http:// or https:// URL, not \"\(refusedURLText(text))\"")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
