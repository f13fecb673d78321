import DepotFixtures
import DepotManifest
import DepotPolicy
import Foundation
import Testing

/// Which side of a rollout an install takes, as a table, and the bucket rule pinned: a device
/// and a simulated fleet run this very code, and a bucket that changed between versions would
/// move installs across a rollout.
@Suite("Rollout sides")
struct RolloutSideTests {
    static let old = String(repeating: "a", count: 64)
    static let new = String(repeating: "b", count: 64)
    static let other = String(repeating: "c", count: 64)

    static func document(percent: Int?) -> ChannelDocument {
        Fixture.channelDocument(
            release: old,
            number: 7,
            serial: 3,
            rollout: percent.map { .init(release: new, number: 8, percent: $0, salt: "5a17") }
        )
    }

    static let cases: [(name: String, percent: Int?, bucket: Int, holding: String?, side: RolloutSide.Side, release: String)] = [
        ("no rollout", nil, 5, nil, .noRollout, old),
        ("no rollout while holding the newer release: a rollback", nil, 5, new, .noRollout, old),
        ("bucket below the percentage", 10, 9, nil, .rolledOut, new),
        ("bucket at the percentage", 10, 10, nil, .outside, old),
        ("bucket above, holding the base", 10, 50, old, .outside, old),
        ("bucket above, holding the rolled-out release: kept", 10, 50, new, .rolledOut, new),
        ("bucket above, holding another release: the base", 10, 50, other, .outside, old),
        ("0%: nobody new", 0, 0, nil, .outside, old),
        ("100%: everybody", 100, 99, nil, .rolledOut, new),
    ]

    @Test("each install takes its side, for its reason", arguments: 0..<cases.count)
    func table(index: Int) throws {
        let row = Self.cases[index]
        let side = try RolloutSide.decide(Self.document(percent: row.percent), bucket: { _ in row.bucket }, holding: row.holding)
        #expect(side.side == row.side, "\(row.name): \(side.reason)")
        #expect(side.release == row.release, "\(row.name)")
        #expect(side.number == (row.release == Self.new ? 8 : 7))
        #expect(!side.reason.isEmpty)
    }

    static let older = String(repeating: "d", count: 64)

    /// Release 7 needs 2.0, release 8 (rolled out to buckets below 10, critical) needs 3.0;
    /// fallbacks: release 6 (needs 1.0), release 5 (any).
    static func compatibilityDocument() -> ChannelDocument {
        var document = document(percent: 10)
        document.minimumClientVersion = "2.0"
        document.rollout?.minimumClientVersion = "3.0"
        document.rollout?.critical = true
        document.fallbacks = [
            .init(release: other, number: 6, minimumClientVersion: "1.0"), .init(release: older, number: 5, minimumClientVersion: nil),
        ]
        return document
    }

    static let compatibilityCases: [(name: String, version: String?, bucket: Int, release: String?, side: RolloutSide.Side?, critical: Bool)] = [
        ("no version given: every release will do", nil, 5, new, .rolledOut, true),
        ("new enough for the rollout", "3.0", 5, new, .rolledOut, true),
        ("3.0.1 is newer than 3", "3.0.1", 5, new, .rolledOut, true),
        ("in the rollout but too old for it: the release it replaces", "2.9.9", 5, old, .fallback, false),
        ("outside the rollout, new enough for its base", "2.0", 50, old, .outside, false),
        ("too old for both: the first fallback it can use", "1.5", 5, other, .fallback, false),
        ("too old for the first fallback too", "0.9", 50, older, .fallback, false),
    ]

    @Test("an app too old for a release takes the newest it can use", arguments: 0..<compatibilityCases.count)
    func compatibility(index: Int) throws {
        let row = Self.compatibilityCases[index]
        let side = try RolloutSide.decide(
            Self.compatibilityDocument(),
            bucket: { _ in row.bucket },
            holding: nil,
            clientVersion: row.version.map { try #require(ClientVersion($0)) }
        )
        #expect(side.release == row.release && side.side == row.side && side.critical == row.critical, "\(row.name): \(side.reason)")
    }

    @Test("with no release it can use, an app keeps what it holds: the decision fails with .incompatible")
    func incompatible() throws {
        var document = Self.compatibilityDocument()
        document.fallbacks = [.init(release: Self.other, number: 6, minimumClientVersion: "1.0")]
        let error = #expect(throws: PolicyError.self) {
            try RolloutSide.decide(document, bucket: { _ in 50 }, holding: nil, clientVersion: ClientVersion("0.9"))
        }
        #expect(error?.code == .incompatible && error?.message.contains("needs 2.0") == true, "\(error?.message ?? "")")
    }

    @Test("client versions compare number by number, missing ones as 0; anything else is no version")
    func clientVersions() throws {
        let ordered = ["0.9", "1", "1.0.1", "1.2", "1.10", "2.0.0.1", "10"].map { ClientVersion($0)! }
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 })
        #expect(ClientVersion("2") == ClientVersion("2.0.0.0"))
        for bad in ["", "1.", ".1", "1..2", "v1", "1.2.3.4.5", "1.-2", "1.2a", "1234567890"] { #expect(ClientVersion(bad) == nil, "\(bad)") }
    }
}
