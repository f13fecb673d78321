import DepotConcurrency
import DepotManifest
import DepotPolicy
import Foundation

/// What one sync learnt of the folder's local copies, kept for its length: whether each holds
/// the content its release lists (a SHA-256 of the whole file), and what a block rebuild of it
/// would fetch (the block index, fetched and checked, matched against the copy). The plan
/// (``UpdatePlan``) and the stager (``FileStager``) both need them; a large database is read
/// once, not twice. Local copies do not change during a sync: only its switch changes them.
final class LocalCopies: Sendable {
    private let copies = Locked<[String: ReleasePlan.Fetch.LocalCopy]>([:])
    private let matches = Locked<[String: BlockFetch.Matched]>([:])

    /// What the folder holds at `local`: the content `held` lists when its size and SHA-256
    /// match (a patch applies to nothing else), else other bytes, or nothing.
    func copy(at local: FolderFile, held: ReleaseEntry?) -> ReleasePlan.Fetch.LocalCopy {
        let key = local.path + "\n" + (held?.sha256 ?? "")
        if let known = copies.withLock({ $0[key] }) { return known }
        // Through the folder's descriptor: a link there (or on the way) holds nothing of the release.
        guard let size = local.size else { return .none }
        guard let held, size == held.size else { return .other }
        // Only what took reading the file is kept: a sync of 100,000 new files keeps nothing.
        let copy: ReleasePlan.Fetch.LocalCopy
        if let (sha256, _) = try? StagedContent.digest(of: local), sha256 == held.sha256 { copy = .held } else { copy = .other }
        copies.withLock { $0[key] = copy }
        return copy
    }

    /// `entry`'s blocks matched against `local`, when a match was made this sync: what an
    /// estimate weighs, with no network (``UpdatePlan/BlockQuestion``).
    func matched(_ entry: ReleaseEntry, at local: FolderFile) -> BlockFetch.Matched? {
        matches.withLock { $0[local.path + "\n" + entry.sha256] }
    }

    /// `entry`'s blocks matched against `local` (``BlockFetch/match(_:from:budget:received:)``),
    /// once a sync; `match` runs the first time. Whether it ran now: the index bytes of a match
    /// made earlier were counted by whoever made it.
    func match(
        _ entry: ReleaseEntry,
        at local: FolderFile,
        _ match: () async throws -> BlockFetch.Matched
    ) async throws -> (matched: BlockFetch.Matched, isNew: Bool) {
        let key = local.path + "\n" + entry.sha256
        if let known = matches.withLock({ $0[key] }) { return (known, false) }
        let matched = try await match()
        matches.withLock { $0[key] = matched }
        return (matched, true)
    }
}
