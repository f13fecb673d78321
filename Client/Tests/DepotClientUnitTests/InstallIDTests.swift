import DepotClient
import DepotFixtures
import DepotManifest
import DepotPolicy
import Foundation
import Testing

/// An install's id and its buckets, pinned: a device and a simulated fleet run this very code,
/// and a bucket that changed between versions would move installs across a rollout.
@Suite("Install ids and buckets")
struct InstallIDTests {
    static let old = String(repeating: "a", count: 64)
    static let new = String(repeating: "b", count: 64)

    static func document(percent: Int) -> ChannelDocument {
        Fixture.channelDocument(release: old, number: 7, serial: 3, rollout: .init(release: new, number: 8, percent: percent, salt: "5a17"))
    }

    @Test("buckets are pinned: SHA-256 of depot-rollout-v1, the salt and the id, modulo 100")
    func pinnedBuckets() throws {
        let cases: [(salt: String, id: String, bucket: Int)] = [
            ("5e2697b98657c666", "00000000000000000000000000000000", 34),
            ("5e2697b98657c666", "0123456789abcdef0123456789abcdef", 46),
            ("a", "ffffffffffffffffffffffffffffffff", 86),
        ]
        for row in cases {
            #expect(try #require(InstallID(row.id)).bucket(salt: row.salt) == row.bucket)
        }
    }

    @Test("raising the percentage never moves an install back, and buckets spread evenly")
    func monotoneAndUniform() throws {
        let installs = (0..<10_000).map { _ in InstallID.random() }
        var counts = [Int](repeating: 0, count: 100)
        for install in installs { counts[install.bucket(salt: "5a17")] += 1 }
        // 100 per bucket expected; 5 standard deviations either way.
        #expect(counts.allSatisfy { (50...150).contains($0) }, "\(counts)")
        var held: [String?] = Array(repeating: Self.old, count: installs.count)
        for percent in [1, 10, 50, 100] {
            let document = Self.document(percent: percent)
            for (index, install) in installs.enumerated() {
                let side = try RolloutSide.decide(document, bucket: install.bucket(salt:), holding: held[index])
                #expect(!(held[index] == Self.new && side.release != Self.new), "an install went back at \(percent)%")
                held[index] = side.release
            }
            let share = Double(held.filter { $0 == Self.new }.count) / Double(installs.count) * 100
            #expect(abs(share - Double(percent)) <= max(1.5, Double(percent) * 0.15), "\(share)% at \(percent)%")
        }
    }

    @Test("an install id is made once and kept; a damaged one is made again")
    func installID() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: folder)
        let first = try client.installID()
        #expect(try client.installID() == first)
        #expect(InstallID.random() != first)
        try Data("not an id".utf8).write(to: folder.appendingPathComponent(".depot/install-id"))
        let second = try client.installID()
        #expect(second != first)
        #expect(try client.installID() == second)
        for bad in ["", "0123", String(repeating: "g", count: 32), String(repeating: "A", count: 32)] { #expect(InstallID(bad) == nil) }
    }
}
