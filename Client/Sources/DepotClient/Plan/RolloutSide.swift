import Crypto
import DepotHTTP
import DepotManifest
import Foundation

/// An install's random id, made once and kept in `.depot/install-id`, and the buckets it falls
/// in. The id never leaves the device: rollouts hash it with their salt here, and reports carry
/// only a hash of it with the release they are about.
public struct InstallID: Sendable, Equatable {
    /// 32 lower-case hex digits: 128 random bits.
    public let value: String

    public init?(_ value: String) {
        guard value.utf8.count == 32, value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        self.value = value
    }

    /// A new random id.
    public static func random() -> InstallID {
        var generator = SystemRandomNumberGenerator()
        return InstallID(Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))!
    }

    /// The id `folder` keeps, made and saved durably first when there is none (or it is
    /// unreadable).
    static func load(orCreateIn folder: SyncFolder) throws -> InstallID {
        if let bytes = folder.read(.installID),
            let id = InstallID(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return id
        }
        let id = random()
        try folder.replace(.installID, with: Array((id.value + "\n").utf8))
        return id
    }

    /// This install's bucket for `salt`, 0 to 99: the first 8 bytes of
    /// SHA-256("depot-rollout-v1\n" + salt + "\n" + id), big-endian, modulo 100. Stable across
    /// versions and platforms (a test pins values), uniform, and unrelated between salts.
    public func bucket(salt: String) -> Int {
        let digest = SHA256.hash(data: Data("depot-rollout-v1\n\(salt)\n\(value)".utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % 100)
    }
}
