import DepotTestSupport
import Foundation

extension Fixture {
    /// A public folder with `text.txt`, `noise.bin` and an `index.html`.
    static func standardFolder(_ folder: URL) throws {
        try folder.write(text, to: "text.txt", modified: Date(timeIntervalSince1970: 1_700_000_000))
        try folder.write(noise, to: "noise.bin", modified: Date(timeIntervalSince1970: 1_700_000_000))
        try folder.write(Data("<h1>home</h1>\n".utf8), to: "index.html")
    }
}

extension TestServer {
    /// Runs `body` against a server serving ``Fixture/standardFolder(_:)``, in process or on a
    /// socket, as `Self` runs.
    static func standard<Result: Sendable>(_ body: @Sendable (Self) async throws -> Result) async throws -> Result {
        try await with(prepare: Fixture.standardFolder, body)
    }
}
