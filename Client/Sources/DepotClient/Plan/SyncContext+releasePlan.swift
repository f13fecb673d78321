import DepotManifest
import DepotPolicy

extension SyncContext {
    /// What a switch from the changed pages `before` to `after` fetches (``ReleasePlan``), as a
    /// sync and a seed plan it. With release folders and the tree `tree` held, every file of
    /// `entries` the release keeps is carried over from that tree, and one the app changed there
    /// is fetched instead (``ReleaseTrees/altered(_:in:)``).
    ///
    /// - Throws: ``SyncError`` for a refusal of the plan's rules, or when the tree cannot be read.
    func releasePlan(
        before: [ReleasePage],
        after: [ReleasePage],
        entries: [ReleaseEntry],
        over tree: String?
    ) throws -> (plan: ReleasePlan, carried: ReleaseTrees.Carried) {
        var plan: ReleasePlan
        do {
            plan = try ReleasePlan(before: before, after: after, removesDeletedFiles: configuration.removesDeletedFiles)
        } catch {
            throw SyncError(error)
        }
        guard let tree else { return (plan, ReleaseTrees.Carried()) }
        let fetching = Set(plan.fetches.map(\.entry.path))
        let carried = ReleaseTrees(folder: try folder.open()).altered(entries.lazy.filter { !fetching.contains($0.path) }, in: tree)
        plan.fetches = (plan.fetches + carried.altered.map { ReleasePlan.Fetch(entry: $0, held: nil) }).sorted { $0.entry.path < $1.entry.path }
        return (plan, carried)
    }
}
