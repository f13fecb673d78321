import DepotFiles
import Foundation

/// The sync's steps for an app that decides when each happens: ``check()`` (what an update
/// would cost), ``download()`` (stage it, unseen) and ``apply()`` (switch, in a moment, with no
/// network). ``sync(progress:)`` runs the three as one; they are the same steps, not a second
/// path.
extension DepotClient {
    /// Fetches and verifies the documents only, and says what a sync would do: the release,
    /// the files that change and how each would come, the bytes expected and the space needed
    /// (``UpdatePlan``). Changes nothing the app can see; documents are cached for the download,
    /// and a release staged for another than the channel now names is dropped.
    public func check() async throws -> UpdatePlan {
        guard let plan = try await run(to: .check, progress: ProgressSink()).plan else {
            preconditionFailure("every path of a check returns its plan")
        }
        return plan
    }

    /// Downloads and verifies every file of the release the channel points to into
    /// `.depot/staging/`, resumable as a sync is, and keeps the switch for ``apply()``: the
    /// folder the app reads is not touched. The report's release is the one still held.
    ///
    /// - Throws: as ``sync(progress:)`` does, when any file failed too (``SyncError/report``).
    public func download(progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws -> SyncReport {
        try await run(to: .download, progress: ProgressSink(overall: progress)).report
    }

    /// ``download(progress:)``, its progress as an `AsyncSequence`: the first element, before
    /// the first byte, says what the whole is expected to transfer; `progress` is finished when
    /// the download ends. For example:
    ///
    /// ```swift
    /// let (updates, progress) = AsyncStream.makeStream(of: SyncProgress.self)
    /// async let report = client.download(progress: progress)
    /// for await update in updates { show(update.bytesDone, of: update.bytesExpected) }
    /// ```
    public func download(progress: AsyncStream<SyncProgress>.Continuation) async throws -> SyncReport {
        defer { progress.finish() }
        return try await run(to: .download, progress: ProgressSink(overall: { progress.yield($0) })).report
    }

    /// ``sync(progress:)``, its progress as an `AsyncSequence`, as
    /// ``download(progress:)-(AsyncStream<SyncProgress>.Continuation)`` gives it.
    public func sync(progress: AsyncStream<SyncProgress>.Continuation) async throws -> SyncReport {
        defer { progress.finish() }
        return try await run(to: .apply, progress: ProgressSink(overall: { progress.yield($0) })).report
    }

    /// Switches the folder to the release ``download()`` staged: renames only, no network, in
    /// the switch's crash-safe order. Returns the release now held; called again after a crash
    /// cut it short, it finishes it and returns the same. With no network it cannot
    /// know that the channel has rolled back since: the next ``check()``, ``download()`` or
    /// sync that learns it drops the staged release. What it applies is verified again first
    /// (``SyncContext/checkStaged(_:release:)``): the staged channel document against the trust configured
    /// now (signature, expiry, the channel's serial floor), and every staged file's SHA-256.
    ///
    /// - Throws: ``SyncError`` `.notStaged` when no release is staged, when the folder has moved
    ///   on from the release it was downloaded over (another sync applied one), or when a staged
    ///   file is gone or damaged (a power cut); `.untrusted` when its document is no longer
    ///   believed: nothing is changed, the staging is discarded, and a download is needed.
    ///   `.inUse` when SQLite has a file open that the switch would replace (``SQLiteSidecar``);
    ///   `.io` when the folder holds its release in the other layout (``FolderLayout``).
    @discardableResult
    public func apply() throws -> HeldRelease {
        let syncLock = try lockForSync()
        defer { syncLock.unlock() }
        let context = self.context
        try context.finishInterruptedSwitch()
        try context.checkLayout()
        try context.checkFolderTrust(recording: true)
        guard let bytes = folder.read(.staged) else {
            throw SyncError(.notStaged, "no release is staged in \(directory.path): download first")
        }
        let record = try? JSONDecoder().decode(StagedRelease.self, from: Data(bytes))
        guard let record, let release = record.journal.state.release, record.journal.problem == nil else {
            try? context.discardStaged(nil)
            let problem = record?.journal.problem.map { " (\($0))" } ?? ""
            throw SyncError(.notStaged, "the record of the staged release is damaged\(problem): download again")
        }
        let held = SyncState.load(from: folder).release
        // Applied already, by an apply a crash cut short (finished above): done.
        if held?.id == release.id {
            try? folder.remove(.staged)
            return release
        }
        guard held?.id == record.base else {
            try? context.discardStaged(record)
            throw SyncError(
                .notStaged,
                "release \(release.number) was downloaded over \(record.base == nil ? "an empty folder" : "another release") than the folder holds now: download again"
            )
        }
        if let tree = record.journal.tree, try !ReleaseTrees(folder: try folder.open()).contains(tree) {
            try? context.discardStaged(record)
            throw SyncError(.notStaged, "the folder of release \(release.number) is no longer staged: download again")
        }
        var staged = try context.checkStaged(record, release: release)
        staged.journal.state.trust = SyncState.load(from: folder).trust
        try context.switchRelease(to: staged)
        if configuration.sendsReports {
            // Sent by the next sync or report: applying needs no network.
            try context.reportQueue.add(.applied, release: release.id, channel: release.channel, install: try context.installID())
        }
        return release
    }
}

extension DepotClient {
    static let syncLock = ".depot/sync.lock"

    /// The folder's sync lock, taken exclusively: one sync, download, check or apply at a time.
    ///
    /// - Throws: ``SyncError`` `.io` when another holds it.
    func lockForSync() throws -> FileLock {
        guard let lock = try folder.with({ try FileLock.acquire(Self.syncLock, in: $0, exclusive: true, wait: false) }) else {
            throw SyncError(.io, "another sync of \(directory.path) is running")
        }
        return lock
    }
}
