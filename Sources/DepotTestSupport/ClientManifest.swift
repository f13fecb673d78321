import Foundation

/// What a client sees of the default channel, read over a test connection.
package enum ClientManifest {
    /// The default channel's document (`/manifest.json`), with `files` set to its release's entries.
    package static func read<Connection: TestHTTPConnection & ~Copyable>(_ connection: inout Connection) async throws -> [String: Any] {
        var document = try await connection.request("GET", "/manifest.json", headers: [], body: nil).json
        document["files"] = try await connection.releaseFiles()
        return document
    }

    /// The file entries of a document ``read(_:)`` returned.
    package static func entries(_ manifest: [String: Any]) -> [[String: Any]] {
        manifest["files"] as? [[String: Any]] ?? []
    }
}
