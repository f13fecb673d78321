import CompressNIO
import Crypto
import DepotTestSupport
import Foundation
import NIOCore

/// Content the server tests publish.
enum Fixture {
    /// 20 KiB of text: compresses well, so it has a gzip variant.
    static let text: Data = {
        var text = ""
        var line = 0
        while text.utf8.count < 20_000 {
            text += "line \(line): the quick brown fox jumps over the lazy dog\n"
            line += 1
        }
        return Data(text.utf8)
    }()

    /// 100 000 pseudo-random bytes: incompressible, so no gzip variant.
    static let noise: Data = pseudoRandom(count: 100_000, seed: 42)

    static func pseudoRandom(count: Int, seed: UInt64) -> Data {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    static func sha256(_ data: some DataProtocol) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func gunzip(_ bytes: [UInt8]) throws -> Data {
        var buffer = ByteBuffer(bytes: bytes)
        let decompressed = try buffer.decompress(with: .gzip())
        return Data(decompressed.readableBytesView)
    }

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
