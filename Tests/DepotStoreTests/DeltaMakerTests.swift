import DepotDelta
import DepotStore
import DepotTestFixtures
import Foundation
import NIOCore
import Testing

/// Patches as the server makes them: a VCDIFF whose sections liblzma packs as xdelta3 does,
/// in a gzip stream.
@Suite("Patches with LZMA-packed sections")
struct DeltaMakerTests {
    /// About 12 MB of catalog-like lines (two 8 MiB windows, so each section's stream goes on
    /// from one window to the next), and a version with every 500th line changed.
    static let versions: (old: [UInt8], new: [UInt8]) = {
        var lines = (0..<420_000).map { "\($0)\titem-\($0 * 7919 % 10007)\tstock=\($0 % 97)\tprice=\($0 % 997)" }
        let old = Array(lines.joined(separator: "\n").utf8)
        for id in stride(from: 0, to: lines.count, by: 500) { lines[id] = "\(id)\titem-\(id * 7919 % 10007)\tstock=0\tprice=\(id % 991)" }
        return (old, Array(lines.joined(separator: "\n").utf8))
    }()

    @Test("packed patches are smaller, and both Depot's decoder and xdelta3 rebuild the new version from them")
    func packedPatches() async throws {
        try await withTemporaryDirectory { folder in
            let old = try folder.write(Data(Self.versions.old), to: "old")
            let new = try folder.write(Data(Self.versions.new), to: "new")
            #expect(Self.versions.new.count > 8 << 20)
            let packed = try #require(try DeltaMaker.make(from: old.path, to: new.path))
            let plain = try #require(try DeltaMaker.make(from: old.path, to: new.path, options: .init(packsSections: false)))
            #expect(packed.readableBytes * 10 < plain.readableBytes * 9, "\(packed.readableBytes) bytes packed, \(plain.readableBytes) not")

            let patch = Array(packed.readableBytesView)
            let delta = try patch.withUnsafeBytes { try GzipVCDIFF.inflate($0, maximumTargetSize: 64 << 20) }
            // The header names xdelta3's LZMA (Hdr_Indicator VCD_DECOMPRESS, id 2).
            #expect(Array(delta.prefix(6)) == [0xD6, 0xC3, 0xC4, 0x00, 0x01, 0x02])
            let rebuilt = try patch.withUnsafeBytes { patch in
                try Self.versions.old.withUnsafeBytes { try GzipVCDIFF.apply(patch, source: $0, maximumTargetSize: 64 << 20) }
            }
            #expect(rebuilt == Self.versions.new)

            let deltaFile = try folder.write(Data(delta), to: "delta")
            let output = folder.appendingPathComponent("by-xdelta3")
            let xdelta3 = try await ChildProcess.run("/usr/bin/xdelta3", ["-d", "-f", "-s", old.path, deltaFile.path, output.path])
            #expect(xdelta3.status == 0, "\(String(decoding: xdelta3.standardError, as: UTF8.self))")
            #expect(try Data(contentsOf: output) == Data(Self.versions.new))
        }
    }

    /// The client allows a patch no larger target than the file's size, and so no larger window:
    /// a small file's packed sections, whose streams declare a larger dictionary than the file,
    /// still apply (the first two pack some sections, the last none).
    @Test("patches of small files apply with the target limit the client sets", arguments: [20_000, 3_000, 40])
    func smallFiles(lines: Int) throws {
        let (old, new) = Self.versions(lines: lines, every: 7)
        let patch = Array(try DeltaMaker.make(from: old, to: new).readableBytesView)
        let rebuilt = try patch.withUnsafeBytes { patch in
            try old.withUnsafeBytes { try GzipVCDIFF.apply(patch, source: $0, maximumTargetSize: new.count) }
        }
        #expect(rebuilt == new)
    }

    static func versions(lines count: Int, every step: Int) -> (old: [UInt8], new: [UInt8]) {
        var lines = (0..<count).map { "\($0)\titem-\($0 * 7919 % 10007)\tstock=\($0 % 97)" }
        let old = Array(lines.joined(separator: "\n").utf8)
        for id in stride(from: 0, to: count, by: step) { lines[id] = "\(id)\titem-\(id * 7919 % 10007)\tstock=0" }
        return (old, Array(lines.joined(separator: "\n").utf8))
    }
}
