import DepotTestFixtures
import Foundation

extension Fixture {
    /// 30 small files, 1.2 MB in all, that compress to nothing: one page, one pack.
    package static let smallPackFiles = (0..<30).map { ("small/f\($0).bin", pseudoRandom(count: 40_000, seed: UInt64(900 + $0))) }
    /// The length of ``smallPackFiles``' plain pack.
    package static let smallPackLength = Int64(30 * 40_000)

    /// The size of the file a resumed download fetches.
    package static let resumeSize = 3_000_000
    /// The first version of the file a resumed download fetches.
    package static let resumeFirst = pseudoRandom(count: resumeSize, seed: 21)
    /// The second version of the file a resumed download fetches.
    package static let resumeSecond = pseudoRandom(count: resumeSize, seed: 23)
}

extension Fixture {
    /// The partial downloads in a synced `folder`, without the ETags kept beside them.
    package static func partials(_ folder: URL) -> [URL] {
        let partial = folder.appendingPathComponent(".depot/partial")
        return ((try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []).filter { !$0.hasSuffix(".etag") }
            .map { partial.appendingPathComponent($0) }
    }

    /// The size of the file at `url`, or -1 when there is none.
    package static func fileSize(_ url: URL) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? -1
    }
}
