import Crypto
import DepotDelta
import Foundation

/// Content and digests that several test targets use.
public enum Fixture {
    /// 20 KiB of text: compresses well, so it has a gzip variant.
    public static let text: Data = {
        var text = ""
        var line = 0
        while text.utf8.count < 20_000 {
            text += "line \(line): the quick brown fox jumps over the lazy dog\n"
            line += 1
        }
        return Data(text.utf8)
    }()

    /// 350 KB of catalog-like rows (`row, name, price, date`): brotli and zstd save well over
    /// 3% against gzip, so a server that makes variants keeps both.
    public static let catalogRows: Data = {
        let words = ["harbour", "station", "platform", "north", "express", "local", "terminal", "junction", "bridge", "valley", "coast", "airport"]
        var text = ""
        for row in 0..<8000 {
            text += "\(row)\t\(words[row * 7 % words.count]) \(words[row * 13 % words.count])\t\(row * 37 % 1000).\(row % 100)"
            text += "\t2026-\(1 + row % 12)-\(1 + row % 28)\n"
        }
        return Data(text.utf8)
    }()

    /// 100 000 pseudo-random bytes: incompressible, so no gzip variant.
    public static let noise: Data = pseudoRandom(count: 100_000, seed: 42)

    /// Deterministic incompressible bytes (xorshift); different odd seeds give different bytes.
    public static func pseudoRandom(count: Int, seed: UInt64) -> Data {
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

    public static func sha256(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func sha256Bytes(_ data: some DataProtocol) -> [UInt8] {
        Array(SHA256.hash(data: data))
    }

    public static func md5(_ data: some DataProtocol) -> String {
        hex(Insecure.MD5.hash(data: data))
    }

    public static func md5Bytes(_ data: some DataProtocol) -> [UInt8] {
        Array(Insecure.MD5.hash(data: data))
    }

    /// `data` as gzip at zlib's level 6, as the server compresses its variants by default.
    public static func gzip(_ data: Data) throws -> [UInt8] {
        try data.withUnsafeBytes { try Gzip.compress($0, level: 6) }
    }

    public static func gunzip(_ bytes: [UInt8]) throws -> Data {
        Data(try bytes.withUnsafeBytes { try Gzip.decompress($0) })
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The regular files below `folder`, by path relative to it: subfolders are not listed.
    public static func files(below folder: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder), !isFolder.boolValue {
                files.append(name)
            }
        }
        return files
    }
}
