import DepotFiles
import DepotManifest
import DepotPolicy
import Foundation

extension SyncAttempt {
    /// Fetches and verifies every file of the plan into `.depot/staging/` (``FileStager``); a
    /// file that fails is reported as failed and the others go on.
    func stage(_ planned: PlannedSync, progress: ProgressSink.Stager?) async throws -> [SyncReport.File] {
        let (contentPath, folder) = (planned.contentPath, try context.folder.open())
        var stager = FileStager(
            server: server,
            staging: StagingFolder(folder),
            localFile: { try LocalPath.file(for: $0, in: contentPath, folder: folder) },
            parallelDownloads: context.configuration.parallelDownloads,
            session: session,
            progress: progress
        )
        stager.pages = planned.afterPages
        stager.localCopies = planned.localCopies
        return await stager.stage(planned.plan.fetches)
    }

    /// With every file staged: switches the folder to the release (``SyncContext/switchRelease(to:)``)
    /// and reports it applied, or, for a download, records the switch for
    /// ``DepotClient/apply()`` and changes nothing the app sees. With release folders the new
    /// release's tree is made first. Returns the report with the release the folder holds.
    func switchOrKeep(_ planned: PlannedSync, of channel: NewChannel, from start: SyncStart, report: SyncReport) async throws -> SyncReport {
        var report = report
        var state = start.state
        state.channel = channel.document
        state.channelETag = channel.entityTag
        state.hold(planned.next)
        var journal = ReleaseJournal(state: state, moves: planned.moves, removals: planned.plan.removals.map(\.path))
        var built: (name: String, lock: FileLock)?
        defer { built?.lock.unlock() }
        if context.configuration.layout == .releaseFolders {
            built = try context.buildTree(
                of: planned.next,
                entries: planned.entries,
                plan: planned.plan,
                held: start.placed == nil ? nil : start.tree
            )
            journal = ReleaseJournal(state: state, moves: [], removals: [], tree: built?.name)
        }
        let staged = StagedRelease(
            base: start.placed?.id,
            journal: journal,
            pagesBefore: planned.pagesBefore,
            bytes: planned.fetchedBytes,
            stagedAt: context.now()
        )
        guard goal == .apply else {
            // Downloaded only: kept for ``DepotClient/apply()``, which needs no network.
            try context.keepStaged(staged)
            report.release = start.placed
            report.staged = planned.next
            return report
        }
        try context.switchRelease(to: staged)
        report.files += planned.plan.removals.map { .init(path: $0.path, outcome: .removed, bytesTransferred: 0, size: $0.size) }
        report.release = planned.next
        try await self.report(.applied, about: channel.side.release)
        return report
    }
}
