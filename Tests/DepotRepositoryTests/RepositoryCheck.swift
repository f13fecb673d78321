import DepotTestSupport
import Foundation
import Testing

/// What the tests of the repository's checks (`scripts/lib/…`) share: where the package is, and
/// a check run over a small package a row plants.
enum RepositoryCheck {
    /// This package's folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `script` over `folder` and expects what a row says: a failure that prints `problem`,
    /// or a pass (`nil`).
    static func expect(_ script: URL, over folder: URL, problem: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let check = try await ChildProcess.run(script.path, [folder.path])
        let said = String(decoding: check.standardOutput, as: UTF8.self)
        #expect(check.status == (problem == nil ? 0 : 1), "\(said)", sourceLocation: sourceLocation)
        if let problem { #expect(said.contains(problem), "\(said)", sourceLocation: sourceLocation) }
    }
}
