import DepotManifest
import Foundation

/// A server the fleet polls: an `http://host:port/prefix/` URL, as `DepotClient.servers` takes
/// one (a bucket's URL carries the bucket's name as its path).
struct ServerAddress: Sendable, CustomStringConvertible {
    let host: String
    let port: Int
    /// The URL's path without its trailing slash: `""` or `/bucket`.
    let prefix: String
    let description: String

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    init(_ text: String) throws {
        guard let url = URL(string: text), url.scheme == "http", let host = url.host, !host.isEmpty else {
            throw Refused(description: "not an http:// URL: \(text)")
        }
        self.host = host
        self.port = url.port ?? 80
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        self.prefix = path
        self.description = text
    }

    /// The request target of `object` on this server.
    func target(_ object: TreeObject) -> String { prefix + object.url }

    /// The request target of an absolute path on this server (`/v1/reports`).
    func target(path: String) -> String { prefix + path }
}
