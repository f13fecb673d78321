import DepotFiles
import DepotManifest
import DepotPolicy
import Foundation

extension SyncAttempt {
    /// Refuses a download the folder's file system has no room for: every changed file is staged
    /// whole before the switch (``UpdatePlan/requiredBytes``, or the same rule over the plan when
    /// no estimate was made), read against ``DepotClient/Configuration/freeSpace``.
    ///
    /// - Throws: ``SyncError`` `.noSpace`, saying what is needed and what is free.
    func checkSpace(_ planned: PlannedSync, estimate: UpdatePlan?) throws {
        guard let free = context.configuration.freeSpace.read(context.directoryPath) else { return }
        let required: Int64
        if let estimate {
            required = estimate.requiredBytes
        } else {
            let staging = StagingFolder(try context.folder.open())
            let files = planned.plan.fetches.lazy.map { fetch in
                (size: fetch.entry.size, isStaged: staging.stagedSize(fetch.entry.sha256) == fetch.entry.size)
            }
            required = UpdatePlan.spaceNeeded(files, copied: planned.carried.copiedBytes)
        }
        try checkSpace(needed: required, release: planned.next.number, free: free)
    }

    /// Refuses to stage `needed` bytes of `release` when the folder's file system has less
    /// free (`free`, else read).
    ///
    /// - Throws: ``SyncError`` `.noSpace`, saying what is needed and what is free.
    func checkSpace(needed: Int64, release: Int64, free: Int64? = nil) throws {
        guard let free = free ?? context.configuration.freeSpace.read(context.directoryPath), needed > free else { return }
        throw SyncError.noSpace(required: needed, free: free, release: release, folder: context.directoryPath)
    }
}
