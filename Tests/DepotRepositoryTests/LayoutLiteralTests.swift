import Foundation
import Testing

/// The tree's layout has one owner, `DepotManifest.TreeObject`: no other file of Depot's code
/// spells an object's path (`blobs/…`, `releases/…`, `pages/…`, `packs/…`, `deltas/…`,
/// `roots/…`, `channels/…`) in a string, so no name read from a document reaches a URL or a file
/// without its checks. The API's `/v1/…` paths are not the tree's, and comments say what they
/// like.
@Suite("One owner of the tree's layout")
struct LayoutLiteralTests {
    static let root = RepositoryCheck.root
    /// The server's sources and the client package's.
    static let sources = [root.appendingPathComponent("Sources"), root.appendingPathComponent("Client/Sources")]
    /// The owner, the tests' own helpers (a relay that matches raw request lines, fixtures), and
    /// the configuration's key table, whose meanings are the prose `docs/configuration.md` is made of.
    static let exempt = [
        "DepotManifest/TreeObject.swift", "DepotTestSupport/", "DepotTestFixtures/", "DepotFixtures/",
        "DepotServer/Configuration/ConfigurationKey",
    ]
    static let literal = try! NSRegularExpression(pattern: #""[^"\n]*(?<!/v1/)(?<![A-Za-z0-9_.])(blobs|releases|pages|packs|deltas|roots|channels)/"#)

    /// The lines of `text` that spell an object path in a string, comments and the routes of the
    /// API's `/v1` group (`publishing.…`) aside.
    static func violations(in text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), !code.hasPrefix("publishing.") else { return false }
            return literal.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
    }

    @Test("the rule catches a path spelled in a string, and leaves comments and the API alone")
    func rule() {
        #expect(Self.violations(in: #"let path = "blobs/\(sha)""#).count == 1)
        #expect(Self.violations(in: #"get("/pages/\(page)")"#).count == 1)
        #expect(Self.violations(in: #"folder + "/deltas/x""#).count == 1)
        #expect(Self.violations(in: #"/// `/blobs/{sha256}`"#).isEmpty)
        #expect(Self.violations(in: #"send(.POST, "/v1/blobs/missing")"#).isEmpty)
        #expect(Self.violations(in: #"publishing.post("blobs/missing", use: missingBlobs)"#).isEmpty)
        #expect(Self.violations(in: #"let name = "myblobs/x""#).isEmpty)
    }

    @Test("no file of Depot's code but TreeObject spells an object's path")
    func noLiterals() throws {
        var found: [String] = []
        for sources in Self.sources {
            let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
                .filter { $0.hasSuffix(".swift") && !Self.exempt.contains(where: $0.hasPrefix) }
            #expect(files.count > 100, "the sources in \(sources.path) were found")
            for file in files.sorted() {
                let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                found += Self.violations(in: text).map { "\(file): \($0.trimmingCharacters(in: .whitespaces))" }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
