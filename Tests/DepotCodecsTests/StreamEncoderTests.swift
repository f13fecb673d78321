import DepotCodecs
import DepotTestFixtures
import Foundation
import Testing

/// The streaming encoders (issue 56): a file fed in chunks encodes to what the one-shot
/// encoder makes (within 1%), decodes back, and is refused past its end.
@Suite("Brotli and zstd: streaming encoders")
struct StreamEncoderTests {
    static let content = [UInt8](Fixture.catalogRows)

    static let codecs:
        [(String, @Sendable (Int64) throws -> any StreamEncoder, @Sendable ([UInt8]) throws -> [UInt8], @Sendable ([UInt8]) throws -> [UInt8])] = [
            (
                "brotli", { try Brotli.Encoder(settings: .init(quality: 9, window: 22), sizeHint: $0) },
                { try Brotli.compress($0, settings: .init(quality: 9, window: 22)) }, { try Brotli.decompress($0, maximumBytes: 1 << 26) }
            ),
            (
                "zstd", { try Zstd.Encoder(settings: .init(level: 12, longWindow: 20), size: $0) },
                { try Zstd.compress($0, settings: .init(level: 12, longWindow: 20)) }, { try Zstd.decompress($0, maximumBytes: 1 << 26) }
            ),
        ]

    @Test("chunks of 1 KiB: the one-shot encoding's size within 1%, decoded back whole", arguments: codecs.indices)
    func chunked(index: Int) throws {
        let (name, makeEncoder, oneShot, decode) = Self.codecs[index]
        let encoder = try makeEncoder(Int64(Self.content.count))
        var encoded: [UInt8] = []
        for start in stride(from: 0, to: Self.content.count, by: 1024) {
            try Self.content[start..<min(start + 1024, Self.content.count)].withUnsafeBytes { try encoder.encode($0) { encoded += $0 } }
        }
        try encoder.finish { encoded += $0 }
        #expect(try decode(encoded) == Self.content, "\(name)")
        let whole = try oneShot(Self.content)
        #expect(abs(Double(encoded.count) / Double(whole.count) - 1) < 0.01, "\(name): \(encoded.count) against \(whole.count)")
        #expect(throws: CodecError.self, "\(name): nothing after the end") { try encoder.finish { _ in } }
    }

    @Test("an empty input is a valid empty stream", arguments: codecs.indices)
    func empty(index: Int) throws {
        let (name, makeEncoder, _, decode) = Self.codecs[index]
        #expect(try decode(try makeEncoder(0).encodeWhole([])) == [], "\(name)")
    }
}
