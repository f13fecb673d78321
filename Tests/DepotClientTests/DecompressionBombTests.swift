import DepotClient
import DepotDelta
import Foundation
import Testing

@testable import DepotStore

/// Patches whose decoding would cost far more than what they make: empty windows whose
/// LZMA-packed sections unpack to megabytes each, run by instructions of size 0. A decoder's
/// work must follow its output, so such a patch is refused at its first window (and a client
/// fetches the document whole instead: `HostileReleaseTests.badDocumentPatch`).
@Suite("Decompression bombs")
struct DecompressionBombTests {
    /// A gzip-compressed VCDIFF of `windows` windows that each make nothing, while each unpacks
    /// `megabytes` MiB of data and twice as much of instructions (`RUN` of size 0, one data byte
    /// each): a few hundred bytes a window.
    static func bomb(windows: Int, megabytes: Int = 1) throws -> Data {
        let packer = LZMASectionPacker()
        let data = [UInt8](repeating: 0, count: megabytes << 20)
        let instructions = [UInt8](repeating: 0, count: 2 * data.count)
        var delta = VCDIFFEncoder.header(compressorID: LZMASection.compressorID)
        for _ in 0..<windows {
            let packedData = try integer(data.count) + data.withUnsafeBytes { try packer.pack($0, kind: .data)! }
            let packedInstructions = try integer(instructions.count) + instructions.withUnsafeBytes { try packer.pack($0, kind: .instructions)! }
            // Target length 0; data and instructions packed; no addresses.
            let encoding = integer(0) + [0x03] + integer(packedData.count) + integer(packedInstructions.count) + integer(0)
            let body = encoding + packedData + packedInstructions
            delta += [0] + integer(body.count) + body
        }
        return Data(try delta.withUnsafeBytes { try Gzip.compress($0, level: 9) })
    }

    /// 300 windows that unpack 900 MiB and make nothing, in under 200 KB.
    static let patch: Data = (try? bomb(windows: 300)) ?? Data()

    /// A VCDIFF integer (RFC 3284 §2).
    static func integer(_ value: Int) -> [UInt8] {
        var digits = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            digits.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return digits
    }

    @Test("a packed section larger than its window can use is refused at the first window")
    func refusedAtOnce() throws {
        #expect(Self.patch.count > 1_000 && Self.patch.count < 200_000)
        #expect { try DeltaPatch.apply(Self.patch, to: Data("base".utf8), maximumSize: 16 << 20) } throws: { error in
            "\(error)".contains("larger than 0")
        }
    }
}
