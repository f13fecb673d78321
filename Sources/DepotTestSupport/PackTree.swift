import DepotTestFixtures
import Foundation

/// 800 small files of 1 KiB in `site/`, eight pages of them: what the pack suites ("Packs",
/// "Syncs through the shipped nginx site", "Syncs killed mid-way") publish and sync.
package enum PackTree {
    package static let files = 800

    package static func writeTree(_ root: URL) throws {
        let all = Fixture.pseudoRandom(count: files * 1024, seed: 29)
        for index in 0..<files {
            try root.write(all[index * 1024..<(index + 1) * 1024], to: "site/\(index / 100)/\(index).bin")
        }
    }
}
