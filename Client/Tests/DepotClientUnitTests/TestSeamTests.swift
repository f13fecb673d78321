import DepotConcurrency
import Foundation
import Testing

@testable import DepotClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam through which the server's tests answer a `DepotClient` in process
/// (``DepotClient/testProtocols``) stays a test's: empty unless a test fills it, and declared
/// without `public`, `package` or `open`, so that no app can reach it without `@testable import`
/// (which a release build refuses).
@Suite("The in-process test seam")
struct TestSeamTests {
    static let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/DepotClient/Transport/DepotClient+testProtocols.swift")

    @Test("no URLProtocol is asked first unless a test registers one")
    func emptyByDefault() {
        #expect(DepotClient.testProtocols.withLock { $0.isEmpty })
        let client = DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: URL(fileURLWithPath: "/nonexistent"))
        let plain = URLSessionConfiguration.ephemeral.protocolClasses ?? []
        #expect((client.sessionConfiguration.protocolClasses ?? []).count == plain.count, "the client's sessions ask the system's protocols only")
    }

    @Test("the seam's declarations are internal")
    func internalOnly() throws {
        let text = try String(contentsOf: Self.source, encoding: .utf8)
        let declarations = text.split(separator: "\n").filter { $0.contains(" let ") || $0.contains(" func ") || $0.contains(" var ") }
        #expect(declarations.count == 2, "\(declarations)")
        for line in declarations {
            let words = line.split(separator: " ")
            #expect(!words.contains("public") && !words.contains("package") && !words.contains("open"), "\(line)")
        }
        #expect(!text.contains("public extension") && !text.contains("package extension"))
    }
}
