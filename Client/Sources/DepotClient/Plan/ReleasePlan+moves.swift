import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

extension ReleasePlan {
    /// The renames of the switch, from `.depot/staging/{sha256}`: content that several paths
    /// share is copied for all but its last path, which takes the staged file itself.
    var moves: [ReleaseJournal.Move] {
        var remaining = Dictionary(fetches.lazy.map { ($0.entry.digest, 1) }, uniquingKeysWith: +)
        return fetches.map { fetch in
            let digest = fetch.entry.digest
            remaining[digest, default: 1] -= 1
            return ReleaseJournal.Move(staged: digest, path: fetch.entry.path, copy: remaining[digest]! > 0, modified: fetch.entry.modifiedSeconds)
        }
    }
}

extension ReleaseEntry {
    /// `lastModified` in seconds since 1970, when it parses.
    var modifiedSeconds: Int64? {
        HTTPDate(parsing: lastModified, now: HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970)))?.secondsSince1970
    }
}
