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

extension LiveServer {
    /// Runs `body` against a server serving ``Fixture/standardFolder(_:)``.
    static func standard<Result: Sendable>(_ body: @Sendable (LiveServer) async throws -> Result) async throws -> Result {
        try await LiveServer.with(prepare: Fixture.standardFolder, body)
    }
}

extension InProcessServer {
    /// Runs `body` against an application serving ``Fixture/standardFolder(_:)``, in process.
    static func standard<Result: Sendable>(_ body: @Sendable (InProcessServer) async throws -> Result) async throws -> Result {
        try await InProcessServer.with(prepare: Fixture.standardFolder, body)
    }
}
