import DepotFiles
import DepotManifest
import Foundation

/// The release a folder held before its current one, and the tree that holds it
/// (``SyncState/previous``).
struct PreviousRelease: Codable, Equatable {
    var release: HeldRelease
    var tree: String
}

extension DepotClient {
    /// The most releases the folder remembers as reverted (``SyncState/refused``).
    static let refusedKept = 16

    /// Goes back to the release the folder held before the current one, when the app judges the
    /// current one broken: with ``FolderLayout/releaseFolders`` and
    /// ``Configuration/keepsPreviousRelease`` on, the link `current` names the previous
    /// release's folder again, with no network, in the switch's crash-safe order
    /// (``ReleaseJournal``). The folder remembers the release reverted: a sync does not take it
    /// again while the channel still names it, and takes a newer release as usual. With
    /// ``Configuration/sendsReports``, a `failed` report on the reverted release is queued (sent
    /// by the next sync), so the rollout's gate hears of it. An app holding the reverted
    /// release open (``openCurrentRelease()``) keeps reading it until it reopens.
    ///
    /// ```swift
    /// if launchFailed { try client.revert() }  // then reopen: client.openCurrentRelease()
    /// ```
    ///
    /// Called again after a crash cut it short, it finishes it and returns the same release.
    ///
    /// - Returns: The release now held.
    /// - Throws: ``SyncError`` `.io` in the in-place layout, which keeps no previous release;
    ///   `.notStaged` when there is no previous release, or its folder is no longer kept;
    ///   `.untrusted` when no key or root trusted now signed the document that named it.
    @discardableResult
    public func revert() throws -> HeldRelease {
        let syncLock = try lockForSync()
        defer { syncLock.unlock() }
        let context = self.context
        try context.finishInterruptedSwitch()
        if let reverted = try finishRevert() { return reverted }
        guard configuration.layout == .releaseFolders else {
            throw SyncError(
                .io,
                "revert() needs the release-folders layout (Configuration.layout = .releaseFolders, with keepsPreviousRelease): in place, the previous release's files are replaced as a sync applies, so \(directoryPath) keeps none to go back to"
            )
        }
        try context.checkLayout()
        let state = SyncState.load(from: folder)
        guard let current = state.release, let previous = state.previous else {
            throw SyncError(.notStaged, "\(directoryPath) holds no previous release to revert to: it was synced once, or reverted already")
        }
        let trees = ReleaseTrees(folder: try folder.open())
        // A state edited to name another folder (`..`, the current tree, another release's) would
        // commit a journal no switch can carry out, or a release whose files are not its own.
        guard ReleaseTrees.isName(previous.tree, number: previous.release.number), previous.tree != (try trees.current()) else {
            throw SyncError(
                .io,
                "\(directoryPath)/.depot/state.json names \(previous.tree) as the folder of release \(previous.release.number), the previous one: not a release folder Depot made for it"
            )
        }
        guard configuration.keepsPreviousRelease, try trees.contains(previous.tree) else {
            throw SyncError(
                .notStaged,
                "the folder of release \(previous.release.number), the previous one, is no longer kept in \(directoryPath): turn on Configuration.keepsPreviousRelease to keep it for a revert"
            )
        }
        guard previous.release.isStillTrusted(since: current, under: try context.trust()) else {
            throw SyncError(
                .untrusted,
                "release \(previous.release.number), the previous one, was named by a channel document that no key or root trusted now signed: not gone back to"
            )
        }
        var reverted = state
        reverted.release = previous.release
        reverted.previous = nil
        reverted.refused = Array(((state.refused ?? []).filter { $0 != current.id } + [current.id]).suffix(Self.refusedKept))
        reverted.unreportedRevert = configuration.sendsReports ? current : nil
        try context.releaseSwitch.switchTo(ReleaseJournal(state: reverted, moves: [], removals: [], tree: previous.tree), keepingPrevious: false)
        context.collectTrees()
        _ = try finishRevert()
        return previous.release
    }

    /// Queues the `failed` report of a revert not yet reported (``SyncState/unreportedRevert``)
    /// and forgets it; returns the release the folder holds then, or `nil` when no revert waited.
    /// Run under the sync lock, by a revert and by a sync.
    func finishRevert() throws -> HeldRelease? {
        let context = self.context
        var state = context.state
        guard let reverted = state.unreportedRevert else { return nil }
        if configuration.sendsReports {
            try context.reportQueue.add(
                .failed(reason: "reverted by the app"),
                release: reverted.id,
                channel: reverted.channel,
                install: try context.installID()
            )
        }
        state.unreportedRevert = nil
        try state.save(in: folder)
        return state.release
    }
}

extension HeldRelease {
    /// Whether the app may still go back to this release under `trust`, the folder having
    /// accepted `newer` since: under keys, a key that signed the document naming it is still
    /// trusted (the rule of a serial floor, ``ChannelCheck/floorApplies(_:under:)``); under a
    /// root, it was named under the root of `newer` or a later one (a new root is how a leaked
    /// key is revoked).
    func isStillTrusted(since newer: HeldRelease, under trust: ChannelCheck.Trust) -> Bool {
        let accepted = ChannelCheck.Accepted(serial: serial, release: id, root: root, signers: signers.map(Set.init))
        return ChannelCheck.floorApplies(accepted, under: trust) && (root ?? 0) >= (newer.root ?? 0)
    }
}

extension SyncState {
    /// Whether the app reverted `release` (``DepotClient/revert()``): a sync does not take it.
    func refuses(_ release: String) -> Bool {
        refused?.contains(release) ?? false
    }

    /// A poll's answer when the channel's new document names `release`, which the app reverted:
    /// the folder keeps `held`, and follows the document (its `ETag`, and its serial as the
    /// channel's floor).
    func keeping(_ held: HeldRelease, refusing release: HeldRelease, document: ChannelDocument, entityTag: String?, report: SyncReport) -> Poll {
        var state = self
        state.channel = document
        state.channelETag = entityTag
        state.accepted = (accepted ?? [:]).merging([release.channel: release]) { $1 }
        var report = report
        report.release = held
        return .sameRelease(report, state)
    }
}
