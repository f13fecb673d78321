import DepotFiles
import DepotManifest
import DepotPolicy
import Foundation

extension DepotClient {
    /// Runs the sync's steps up to `goal` (``SyncGoal``), on each server in turn (``Failover``),
    /// under the folder's sync lock, once an interrupted switch is finished and waiting reports
    /// are sent; returns the report and, for `.check`, the plan. When files failed it throws
    /// ``SyncError/filesFailed(_:)``, the report attached, or `CancellationError` when the
    /// caller's task was cancelled. A sync that made the folder and
    /// then fails (or has failed files, with nothing to resume), or a check that made it,
    /// removes it (``MadeFolder``).
    func run(to goal: SyncGoal, progress: ProgressSink) async throws -> (report: SyncReport, plan: UpdatePlan?) {
        let made = MadeFolder(path: directoryPath)
        let syncLock = try lockForSync()
        defer { syncLock.unlock() }
        let result: (report: SyncReport, plan: UpdatePlan?)
        do {
            result = try await runLocked(to: goal, progress: progress)
        } catch {
            // A first sync that fails leaves no folder behind: what it made goes, under its lock
            // (a sync that could not take the lock made nothing).
            made?.remove()
            throw error
        }
        if goal == .check {
            made?.remove()
        } else if result.report.failedCount > 0 {
            made?.removeUnlessResumable()
            // Files cut short by the caller's cancellation failed because it asked: it hears so,
            // as from any other cancelled call (what was downloaded is kept for the next sync).
            try Task.checkCancellation()
            throw SyncError.filesFailed(result.report)
        }
        return result
    }

    /// ``run(to:progress:)`` under the folder's sync lock.
    private func runLocked(to goal: SyncGoal, progress: ProgressSink) async throws -> (report: SyncReport, plan: UpdatePlan?) {
        let context = self.context
        try context.finishInterruptedSwitch()
        if goal != .check { _ = try finishRevert() }
        try context.checkLayout()
        try context.checkFolderTrust(recording: goal != .check)
        context.collectTrees()
        // Reports an earlier call could not send go first: a sync is when a server is reachable.
        await context.sendReports()
        /// What earlier servers of this sync fetched and verified, by path.
        var fetched: [String: SyncReport.File] = [:]
        var plan: UpdatePlan?
        let (result, failovers) = try await Failover.run(servers, name: \.redacted) { candidate, isLast in
            let attempt = SyncAttempt(context: context, server: candidate, goal: goal, progress: progress, reportsFailure: isLast)
            var (report, checked) = try await attempt.run()
            plan = checked
            report.files = report.files.map { file in
                if file.outcome == .staged, let earlier = fetched[file.path] { return earlier }
                var file = file
                if file.outcome.isFetched { file.server = candidate.redacted }
                return file
            }
            report.server = candidate.redacted
            guard report.failedCount > 0 else { return .done(report) }
            for file in report.files where file.outcome.isFetched { fetched[file.path] = file }
            let failure = report.files.first { $0.outcome == .failed }
            return .poor(report, reason: "\(failure?.path ?? ""): \(failure?.error ?? "failed")")
        }
        var report = result
        report.failovers = failovers
        report.reports = try? reportDelivery()
        return (report, plan)
    }
}
