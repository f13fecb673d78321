import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

extension ReleasePlan {
    /// The renames of the switch, from `.depot/staging/{sha256}`: content that several paths
    /// share is copied for all but its last path, which takes the staged file itself.
    var moves: [ReleaseJournal.Move] {
        let copies = ReleaseJournal.Move.copies(
            count: fetches.count,
            hash: { fetches[$0].entry.digest.hashValue },
            same: { fetches[$0].entry.digest == fetches[$1].entry.digest }
        )
        return fetches.indices.map { index in
            let entry = fetches[index].entry
            return ReleaseJournal.Move(staged: entry.digest, path: entry.path, copy: copies[index], modified: entry.modifiedSeconds)
        }
    }
}

extension ReleaseJournal.Move {
    /// For each of `count` moves, whether a later one has the same content (`same`): all but
    /// its last path copy a staged file. Found by sorting the moves by the hash of their
    /// content, a word a move, not with a table of every content (100,000 contents are 12 MB of
    /// table, at the sync's peak).
    static func copies(count: Int, hash: (Int) -> Int, same: (Int, Int) -> Bool) -> [Bool] {
        let hashes = (0..<count).map(hash)
        let order = hashes.indices.sorted { (hashes[$0], $0) < (hashes[$1], $1) }
        var copies = [Bool](repeating: false, count: count)
        var end = order.count
        while end > 0 {
            // A run of equal hashes, in order: from its end, a content met before is copied.
            var start = end - 1
            while start > 0, hashes[order[start - 1]] == hashes[order[end - 1]] { start -= 1 }
            var seen: [Int] = []
            for index in order[start..<end].reversed() {
                if seen.contains(where: { same($0, index) }) { copies[index] = true } else { seen.append(index) }
            }
            end = start
        }
        return copies
    }

    /// Sets ``copy`` anew over all of `moves`: planned a few pages at a time, a content's last
    /// path may be in a later batch than another of its paths.
    static func markCopies(_ moves: inout [ReleaseJournal.Move]) {
        let copies = copies(count: moves.count, hash: { moves[$0].staged.hashValue }, same: { moves[$0].staged == moves[$1].staged })
        for index in moves.indices where moves[index].copy != copies[index] { moves[index].copy = copies[index] }
    }
}

extension ReleaseEntry {
    /// `lastModified` in seconds since 1970, when it parses.
    var modifiedSeconds: Int64? {
        HTTPDate(parsing: lastModified, now: HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970)))?.secondsSince1970
    }
}
