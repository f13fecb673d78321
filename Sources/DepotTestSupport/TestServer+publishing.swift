import Foundation

extension TestServer {
    /// Publishes `files` (path, contents) in one release.
    package func publish(_ files: [(String, Data)]) async throws {
        try await withConnection { try await $0.publish(files.map { (path: $0.0, data: $0.1) }) }
    }
}
