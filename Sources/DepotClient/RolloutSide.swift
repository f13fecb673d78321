import Crypto
import DepotManifest
import Foundation

/// Which release of a channel document an install follows, and why: the channel's release, or,
/// during a rollout (``ChannelDocument/Rollout``), the release rolled out when the install's
/// bucket is below the rollout's percentage. The rule is pure, so it is tested as a table and a
/// simulated fleet runs the very code a device runs.
public struct RolloutSide: Sendable, Codable, Equatable {
    public enum Side: String, Sendable, Codable {
        /// The document names no rollout: the channel's release.
        case noRollout
        /// In the rollout: the release rolled out.
        case rolledOut
        /// Outside the rollout: the release it replaces.
        case outside
    }

    public var side: Side
    /// The id and number of the release this install follows.
    public var release: String
    public var number: Int64
    /// The install's bucket for the rollout's salt, 0 to 99; `nil` without a rollout.
    public var bucket: Int?
    /// Why, in words.
    public var reason: String

    /// The side of an install whose bucket for a salt is `bucket(salt)` and which holds the
    /// release `holding` (if any).
    ///
    /// An install that holds the release rolled out keeps it whatever its bucket (a new install
    /// id or salt must not move it back); only a rollback, a document with no rollout naming
    /// the older release, does.
    public static func decide(_ document: ChannelDocument, bucket: (String) -> Int, holding: String?) -> RolloutSide {
        guard let rollout = document.rollout else {
            return RolloutSide(side: .noRollout, release: document.release, number: document.number, bucket: nil, reason: "no rollout")
        }
        let bucket = bucket(rollout.salt)
        if holding == rollout.release {
            return RolloutSide(
                side: .rolledOut,
                release: rollout.release,
                number: rollout.number,
                bucket: bucket,
                reason: "holds release \(rollout.number) already: a rollout never moves an install back"
            )
        }
        if bucket < rollout.percent {
            return RolloutSide(
                side: .rolledOut,
                release: rollout.release,
                number: rollout.number,
                bucket: bucket,
                reason: "bucket \(bucket) is below \(rollout.percent)%"
            )
        }
        return RolloutSide(
            side: .outside,
            release: document.release,
            number: document.number,
            bucket: bucket,
            reason: "bucket \(bucket) is not below \(rollout.percent)%"
        )
    }
}

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
        let hex = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        return InstallID(hex)!
    }

    /// The id kept in `file`, made and saved durably first when there is none (or it is
    /// unreadable).
    public static func load(orCreateAt file: URL) throws -> InstallID {
        if let text = try? String(contentsOf: file, encoding: .utf8), let id = InstallID(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return id
        }
        let id = random()
        try AtomicFile.write(Data((id.value + "\n").utf8), to: file)
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
