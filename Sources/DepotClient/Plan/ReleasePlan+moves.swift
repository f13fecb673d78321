import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

extension ReleasePlan {
    /// The renames of the switch, from `.depot/staging/{sha256}`: content that several paths
    /// share is copied for all but its last path, which takes the staged file itself.
    var moves: [ReleaseJournal.Move] {
        var remaining = Dictionary(fetches.map { ($0.entry.sha256, 1) }, uniquingKeysWith: +)
        return fetches.map { fetch in
            let sha256 = fetch.entry.sha256
            remaining[sha256, default: 1] -= 1
            return ReleaseJournal.Move(staged: sha256, path: fetch.entry.path, copy: remaining[sha256]! > 0, modified: fetch.entry.modifiedSeconds)
        }
    }
}

extension ReleaseEntry {
    /// `lastModified` in seconds since 1970, when it parses.
    var modifiedSeconds: Int64? {
        HTTPDate(parsing: lastModified, now: HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970)))?.secondsSince1970
    }
}
