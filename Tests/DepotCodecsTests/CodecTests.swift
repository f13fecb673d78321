import DepotCodecs
import DepotTestFixtures
import Foundation
import Testing

/// Brotli and zstd through the C libraries: what Depot encodes, the reference tools decode and
/// the reverse, the same size as the tools at the same settings, and hostile input refused.
@Suite("Brotli and zstd")
struct CodecTests {
    /// A text a SQLite catalog resembles: repetitive rows with varying numbers, 1.5 MB.
    static let sample: [UInt8] = {
        var text = ""
        var state: UInt64 = 7
        for row in 0..<30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text += "INSERT INTO stop VALUES (\(row), 'Stop \(state % 5000)', \(state % 90).\(state % 1000), \(state >> 40));\n"
        }
        return Array(text.utf8)
    }()

    enum Codec: String, CaseIterable, Sendable {
        case brotli, zstd

        func compress(_ bytes: [UInt8]) throws -> [UInt8] {
            switch self {
            case .brotli: try Brotli.compress(bytes, settings: .init(quality: 11, window: 24))
            case .zstd: try Zstd.compress(bytes, settings: .init(level: 19, longWindow: 27))
            }
        }

        func decompress(_ bytes: [UInt8], maximumBytes: Int = 1 << 30) throws -> [UInt8] {
            switch self {
            case .brotli: try Brotli.decompress(bytes, maximumBytes: maximumBytes)
            case .zstd: try Zstd.decompress(bytes, maximumBytes: maximumBytes)
            }
        }

        /// The reference tool at the same settings: encode, and decode.
        var tool: (encode: [String], decode: [String]) {
            switch self {
            case .brotli: (["brotli", "-q", "11", "-w", "24", "-c"], ["brotli", "-d", "-c"])
            case .zstd: (["zstd", "-19", "--long=27", "-q", "-c"], ["zstd", "-d", "--long=27", "-q", "-c"])
            }
        }
    }

    static func tool(_ command: [String], input: [UInt8], in folder: URL) async throws -> [UInt8] {
        let file = folder.appendingPathComponent("input")
        try Data(input).write(to: file)
        let result = try await ChildProcess.run("/usr/bin/env", command + [file.path])
        #expect(result.status == 0, "\(command): \(String(decoding: result.standardError, as: UTF8.self))")
        return Array(result.standardOutput)
    }

    @Test("round trip; the tool decodes Depot's encoding and Depot the tool's; sizes within 1% of the tool's", arguments: Codec.allCases)
    func interoperates(_ codec: Codec) async throws {
        try await withTemporaryDirectory { folder in
            let encoded = try codec.compress(Self.sample)
            #expect(try codec.decompress(encoded) == Self.sample)
            #expect(try await Self.tool(codec.tool.decode, input: encoded, in: folder) == Self.sample)
            let theirs = try await Self.tool(codec.tool.encode, input: Self.sample, in: folder)
            #expect(try codec.decompress(theirs) == Self.sample)
            let ratio = Double(encoded.count) / Double(theirs.count)
            #expect(abs(ratio - 1) <= 0.01, "\(codec): \(encoded.count) bytes, the tool \(theirs.count)")
            #expect(encoded.count < Self.sample.count / 4, "it compresses: \(encoded.count) of \(Self.sample.count)")
        }
    }

    @Test("a bomb stops at the limit; garbage, a cut stream and trailing bytes are refused", arguments: Codec.allCases)
    func hostile(_ codec: Codec) throws {
        let bomb = try codec.compress([UInt8](repeating: 0, count: 4 << 20))
        #expect(throws: CodecError.self) { try codec.decompress(bomb, maximumBytes: 1 << 20) }
        #expect(throws: CodecError.self) { try codec.decompress(Array(Fixture.noise.prefix(1000))) }
        let encoded = try codec.compress(Self.sample)
        #expect(throws: CodecError.self) { try codec.decompress(Array(encoded.prefix(encoded.count / 2))) }
        if codec == .brotli { #expect(throws: CodecError.self) { try codec.decompress(encoded + [1, 2, 3]) } }
        #expect(try codec.decompress(codec.compress([])) == [])
    }

    @Test("settings out of range are refused")
    func settings() {
        #expect(throws: CodecError.self) { try Brotli.compress([1], settings: .init(quality: 12, window: 24)) }
        #expect(throws: CodecError.self) { try Brotli.compress([1], settings: .init(quality: 11, window: 30)) }
        #expect(throws: CodecError.self) { try Zstd.compress([1], settings: .init(level: 22, longWindow: nil)) }
        #expect(throws: CodecError.self) { try Zstd.compress([1], settings: .init(level: 19, longWindow: 31)) }
    }

    @Test("a stream decoded in pieces of any size gives the same bytes; trailing bytes and a cut stream are refused", arguments: Codec.allCases)
    func streamed(codec: Codec) throws {
        let encoded = try codec.compress(Array(Self.sample.prefix(200_000)))
        for piece in [1, 7, 4096, encoded.count] {
            let decoder: any StreamDecoder = codec == .brotli ? try Brotli.Decoder() : try Zstd.Decoder()
            var decoded: [UInt8] = []
            for start in stride(from: 0, to: encoded.count, by: piece) {
                try encoded[start..<min(start + piece, encoded.count)].withUnsafeBytes { try decoder.decode($0) { decoded += $0 } }
            }
            #expect(decoder.isFinished && decoded == Array(Self.sample.prefix(200_000)), "pieces of \(piece)")
        }
        let cut: any StreamDecoder = codec == .brotli ? try Brotli.Decoder() : try Zstd.Decoder()
        try encoded.dropLast(10).withUnsafeBytes { try cut.decode($0) { _ in } }
        #expect(!cut.isFinished, "a cut stream has not ended")
        let trailing: any StreamDecoder = codec == .brotli ? try Brotli.Decoder() : try Zstd.Decoder()
        #expect(throws: CodecError.self) { try (encoded + [1, 2, 3, 4, 5, 6, 7, 8]).withUnsafeBytes { try trailing.decode($0) { _ in } } }
    }
}
