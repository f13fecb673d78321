import Foundation
import Testing

extension TestHTTPConnection where Self: ~Copyable {
    /// The release entry of `path`, which must list patches: they are made before a publish is
    /// committed.
    package mutating func patchedEntry(_ path: String) async throws -> [String: Any] {
        let entry = try await releaseFiles().first { $0["path"] as? String == path }
        return try #require(entry.flatMap { $0["patches"] == nil ? nil : $0 }, "\(path) lists no patch")
    }

    /// Publishes `data` at `path` (expecting 201) and returns the release entry of `path`.
    package mutating func publishedEntry(_ path: String, _ data: Data) async throws -> [String: Any] {
        #expect(try await publish(path, data).status == 201)
        return try #require(try await releaseFiles().first { $0["path"] as? String == path })
    }
}
