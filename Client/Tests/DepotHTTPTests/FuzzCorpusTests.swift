import DepotHTTP
import DepotManifest
import Foundation
import Testing

/// The seed corpora of `scripts/fuzz paths|fields|pages|multipart`, and every input the fuzzers once found, run
/// through the same checks (``InputHarness``).
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    static func inputs(_ target: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: corpus.appendingPathComponent(target), includingPropertiesForKeys: nil)
            .sorted { $0.path < $1.path }
    }

    @Test("every seed passes its checks", arguments: ["paths", "fields", "pages", "multipart"])
    func seeds(target: String) throws {
        let inputs = try Self.inputs(target)
        #expect(inputs.count >= 5)
        for input in inputs {
            let bytes = Array(try Data(contentsOf: input))
            switch target {
            case "paths": try InputHarness.paths(bytes)
            case "fields": try InputHarness.fields(bytes)
            case "multipart": try InputHarness.multipart(bytes)
            default: try InputHarness.pages(bytes)
            }
        }
    }
}
