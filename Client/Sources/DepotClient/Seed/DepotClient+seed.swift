import DepotFiles
import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

extension DepotClient {
    /// Brings the folder to the release shipped in the app's bundle, with no network: for a first
    /// launch offline, as Expo Updates' embedded update. The bundle holds a folder `depot export`
    /// wrote (`channels/`, `releases/`, `pages/`, `blobs/`, `roots/`), made at build time with
    /// one command:
    ///
    /// ```sh
    /// depot export --to MyApp/Seed    # then add MyApp/Seed to the app as a folder reference
    /// ```
    /// ```swift
    /// if let seed = Bundle.main.url(forResource: "Seed", withExtension: nil) {
    ///     try await client.seed(from: seed)   // offline; a no-op once the folder holds a newer release
    /// }
    /// ```
    ///
    /// The seed is verified as any release is: the channel document `channels/{channel}` against
    /// the trust configured (keys or root, and the channel's serial floor), the release document
    /// and each page against the SHA-256 that names it, and every file against its size and
    /// SHA-256 as it is copied into staging; then the folder switches in the sync's crash-safe
    /// order (``ReleaseJournal``), in either layout. What is not asked of a seed is freshness:
    /// its channel document is judged as of its own expiry when that has passed, since an app
    /// ships for months and a seed never moves a folder back. The documents are kept as a
    /// sync's are, so the next sync against the server is a delta from the seed.
    ///
    /// - Returns: The release the folder holds: the seed's, or (nothing is changed then) a newer
    ///   one it held already, the one it went back to when the app reverted the seed's, or the
    ///   one a newer channel document named since (the channel rolled back after the build).
    /// - Throws: ``SyncError``: `.untrusted` for a channel document the trust refuses, `.corrupt`
    ///   for a document or file that is not what its hash says, or missing, `.io` when the
    ///   folder cannot be written. A refused seed changes nothing the app sees; a folder it made
    ///   is removed.
    @discardableResult
    public func seed(from bundle: URL) async throws -> HeldRelease {
        let source = try BundleSource(bundle)
        let made = MadeFolder(path: directoryPath)
        let syncLock = try lockForSync()
        defer { syncLock.unlock() }
        do {
            return try await context.seed(from: source)
        } catch {
            // A switch committed (its journal written) is finished by the next call, not undone.
            if folder.read(.journal) == nil { made?.remove() }
            throw error
        }
    }

}

extension SyncContext {
    /// ``DepotClient/seed(from:)`` under the folder's sync lock.
    func seed(from source: BundleSource) async throws -> HeldRelease {
        try finishInterruptedSwitch()
        try checkLayout()
        try checkFolderTrust(recording: true)
        let start = try SyncStart(self)
        let reader = TreeReader(source: source, maximumDocumentBytes: configuration.maximumDocumentBytes)
        let (checked, time) = try await seedChannel(reader)
        let side = try rolloutSide(of: checked.document, holding: start.held?.id)
        // Never back: a folder at this release or a newer one keeps it; nor to a release the app
        // reverted (``revert()``), which a seed at every launch would take again each time.
        if let placed = start.placed, placed.number >= side.number || start.state.refuses(side.release) { return placed }
        let signature: ChannelCheck.SignatureStatus
        do {
            signature = try ChannelCheck.check(
                checked.document,
                channel: configuration.channel,
                trust: checked.trust,
                now: time,
                lastAccepted: start.state.floor(of: configuration.channel)
            )
        } catch {
            // Checked without the floor above, so only the floor objects: the folder followed a
            // newer document since the app was built (the channel rolled back to an older
            // release). A stale seed, not a replay to refuse at every launch: nothing moves.
            guard let placed = start.placed else { throw error }
            return placed
        }
        if let newest = checked.roots.last { try folder.replace(.root, with: newest.bytes) }
        var next = HeldRelease(side: side, of: checked.document, signature: signature, trust: checked.trust, held: nil)
        let seeded = try await SeedDocuments(context: self, reader: reader, release: side, over: start.placed)
        next.files = seeded.release.files
        let (plan, entries) = try seeded.plan(for: self, tree: start.tree)
        let staging = StagingFolder(try folder.open())
        var done = Set<String>()
        for fetch in plan.fetches where done.insert(fetch.entry.sha256).inserted {
            let staged = try staging.fileToWrite(fetch.entry.sha256)
            if staged.exists, StagedContent.isIntact(staged, for: fetch.entry) { continue }
            try source.stage(fetch.entry, to: staged)
        }
        var state = start.state
        state.channel = checked.document
        state.channelETag = nil
        state.hold(next)
        var journal = ReleaseJournal(state: state, moves: plan.moves, removals: plan.removals.map(\.path))
        var built: (name: String, lock: FileLock)?
        defer { built?.lock.unlock() }
        if configuration.layout == .releaseFolders {
            built = try buildTree(of: next, entries: entries, plan: plan, held: start.placed == nil ? nil : start.tree)
            journal = ReleaseJournal(state: state, moves: [], removals: [], tree: built?.name)
        }
        try switchRelease(to: StagedRelease(base: start.placed?.id, journal: journal, pagesBefore: seeded.changed.before))
        return next
    }

    /// The seed's channel document, checked against the trust configured as of `now`, or as of
    /// the second before it expired when that has passed (with no floor yet: the seed's release
    /// is compared with the folder's first); with that time.
    private func seedChannel(_ reader: TreeReader<BundleSource>) async throws -> (TreeReader<BundleSource>.CheckedChannel, Int64) {
        var time = now()
        if case .document(let document, _, _) = try await reader.poll(configuration.channel, ifNoneMatch: nil),
            let expires = HTTPDate(parsing: document.expires, now: HTTPDate(secondsSince1970: time))
        {
            time = min(time, expires.secondsSince1970 - 1)
        }
        let checked = try await reader.checkedChannel(configuration.channel, trust: try trust(), fromFirstRoot: false, now: time, lastAccepted: nil)
        guard let checked else { throw SyncError(.corrupt, "the seed at \(reader.source.name) answered for no channel document") }
        return (checked, time)
    }
}
