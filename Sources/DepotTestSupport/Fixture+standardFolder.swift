import DepotTestFixtures
import Foundation

extension Fixture {
    /// A public folder with `text.txt`, `noise.bin` and an `index.html`.
    package static func standardFolder(_ folder: URL) throws {
        try folder.write(text, to: "text.txt", modified: Date(timeIntervalSince1970: 1_700_000_000))
        try folder.write(noise, to: "noise.bin", modified: Date(timeIntervalSince1970: 1_700_000_000))
        try folder.write(Data("<h1>home</h1>\n".utf8), to: "index.html")
    }

    /// The strong ETag a server sends for ``standardFolder(_:)``'s `text.txt`: its SHA-256, quoted.
    package static let standardETag = "\"\(sha256(text))\""

    /// The `Last-Modified` a server sends for ``standardFolder(_:)``'s files.
    package static let standardLastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
}

extension TestServer {
    /// Runs `body` against a server serving ``Fixture/standardFolder(_:)``, in process or on a
    /// socket, as `Self` runs.
    package static func standard<Result: Sendable>(_ body: @Sendable (Self) async throws -> Result) async throws -> Result {
        try await with(prepare: Fixture.standardFolder, body)
    }
}
