import DepotManifest
import DepotPolicy
import Foundation

/// What a page of the new release asks for, or all its changed pages
/// (``SyncAttempt/count(_:held:bases:)``), counted before anything is staged.
struct PageCount: Sendable {
    /// Files to fetch.
    var fetches = 0
    /// Their bytes, but those staged already (``UpdatePlan/spaceNeeded(_:copied:)``).
    var spaceNeeded: Int64 = 0
    /// Entries listed.
    var entries = 0

    static func += (total: inout PageCount, page: PageCount) {
        total.fetches += page.fetches
        total.spaceNeeded += page.spaceNeeded
        total.entries += page.entries
    }
}

extension SyncAttempt {
    /// The entries a batch of pages holds at most (but one page is a batch however large): the
    /// pages of a batch are decoded, planned and staged together, then let go. 4,096 entries
    /// are about 1.5 MB decoded, and the batch's files are fetched a few at a time.
    static let defaultEntriesPerBatch = 4_096

    /// Whether this sync goes a batch of pages at a time (``runPaged(_:from:)``): a download or
    /// sync (a check returns every file's plan), in place, since release folders build a tree of
    /// every entry. A budget or a progress stream is estimated a batch at a time too
    /// (``estimate(_:of:next:held:contentPath:localCopies:)``).
    func isPaged(_ channel: NewChannel) -> Bool {
        context.configuration.layout != .releaseFolders && goal != .check
    }

    /// The steps of ``run()`` from the documents on, holding a batch of pages at a time, not the
    /// release's every entry (100,000 are 30 MB): the changed pages are fetched into the
    /// folder's cache and counted (their files' number and space), then read back a batch at a
    /// time, planned against the entries held, staged, and let go; the switch's moves are kept,
    /// not the entries. With a budget or a progress stream the batches are estimated first, the
    /// same way (``estimate(_:of:next:held:contentPath:localCopies:)``), and only the totals kept.
    /// The switch and its journal are those of ``switchOrKeep(_:of:from:report:)``.
    func runPaged(_ channel: NewChannel, from start: SyncStart) async throws -> (SyncReport, UpdatePlan?) {
        var report = channel.report
        let release = try await context.fetchRelease(channel.side.release, base: start.placed?.id, reader: reader)
        let before = start.placed.flatMap { context.cache.release($0.id) }
        let changed = ReleasePlan.changedPages(from: before, to: release)
        let bases = release.pageBases(from: before)
        let held = try await heldEntries(changed.before, bases: bases)
        let (counts, entries) = try await count(changed.after, held: held, bases: bases)
        report.documentBytes = source.received.total
        report.unchangedCount = Int(release.files) - counts.fetches
        var next = channel.next
        next.files = release.files
        let contentPath = context.contentPath(tree: start.tree)
        let batches = Self.batches(changed.after, entries: entries, limit: entriesPerBatch)
        let localCopies = LocalCopies()
        var stager: ProgressSink.Stager?
        if readsAhead(channel) {
            let estimate = try await estimate(batches, of: channel, next: next, held: held, contentPath: contentPath, localCopies: localCopies)
            try checkSpace(needed: estimate.requiredBytes, release: next.number)
            stager = progress.starting(expected: estimate.expectedBytes, files: estimate.files)
        } else {
            try checkSpace(needed: counts.spaceNeeded, release: next.number)
        }
        var left = held
        var moves: [ReleaseJournal.Move] = []
        var fetchedBytes: Int64 = 0
        report.files.reserveCapacity(counts.fetches)
        for batch in batches {
            var batchPlan = try plan(batch, held: &left, next: next, contentPath: contentPath)
            batchPlan.localCopies = localCopies
            report.files += try await stage(batchPlan, progress: stager)
            moves += batchPlan.moves
            fetchedBytes += batchPlan.fetchedBytes
        }
        // In path order, as a plan of every page has them (the pages are buckets of paths).
        report.files.sort { $0.path < $1.path }
        moves.sort { $0.path < $1.path }
        ReleaseJournal.Move.markCopies(&moves)
        if try await reportsFailure(in: report, of: channel) { return (report, nil) }
        var plan = try ReleasePlan(before: [], after: [], removesDeletedFiles: false)
        if context.configuration.removesDeletedFiles { plan.removals = ReleasePlan.removals(left: left) }
        var planned = PlannedSync(
            plan: plan,
            next: next,
            afterPages: [],
            pagesBefore: changed.before,
            entries: [],
            carried: ReleaseTrees.Carried(),
            contentPath: contentPath
        )
        planned.kept = (moves, fetchedBytes)
        return (try await switchOrKeep(planned, of: channel, from: start, report: report), nil)
    }

    /// The batch of pages `batch`, read back from the folder's cache and planned against the
    /// entries `held` the release held (taking those it meets).
    func plan(_ batch: [String], held: inout [String: ReleaseEntry], next: HeldRelease, contentPath: String) throws -> PlannedSync {
        let pages = try batch.map { sha256 in
            guard let page = context.cache.page(sha256) else { throw SyncError(.io, "the page \(sha256) is missing from \(ReleaseCache.pages)") }
            return (sha256: sha256, page: page)
        }
        let plan: ReleasePlan
        do {
            plan = try ReleasePlan(held: &held, after: pages.map(\.page))
        } catch {
            throw SyncError(error)
        }
        return PlannedSync(
            plan: plan,
            next: next,
            afterPages: pages,
            pagesBefore: [],
            entries: [],
            carried: ReleaseTrees.Carried(),
            contentPath: contentPath
        )
    }

    /// The entries of the changed pages of the release held, by path: from the folder's cache,
    /// or fetched (a crash can lose unsynced ones).
    private func heldEntries(_ hashes: [String], bases: [String: String]) async throws -> [String: ReleaseEntry] {
        var pages = [String: ReleasePage]()
        for sha256 in hashes { pages[sha256] = context.cache.page(sha256) }
        let fetched = try await context.fetchPages(Set(hashes.filter { pages[$0] == nil }), bases: bases, reader: reader)
        pages.merge(fetched) { cached, _ in cached }
        return ReleasePlan.held(in: Array(pages.values))
    }

    /// Fetches into the folder's cache the changed pages of the new release, `hashes`, it lacks
    /// (each decoded and checked, then let go), and counts what they ask for against `held`:
    /// in all, and the entries of each page.
    func count(_ hashes: [String], held: [String: ReleaseEntry], bases: [String: String]) async throws -> (PageCount, entries: [String: Int]) {
        let staging = StagingFolder(try context.folder.open())
        let count: @Sendable (ReleasePage) -> PageCount = { page in
            var count = PageCount(entries: page.entries.count)
            for entry in page.entries where ReleasePlan.fetches(entry, held: held[entry.path]) {
                count.fetches += 1
                if staging.stagedSize(entry.sha256) != entry.size { count.spaceNeeded += entry.size }
            }
            return count
        }
        var pages = [String: PageCount]()
        for sha256 in hashes { pages[sha256] = context.cache.page(sha256).map(count) }
        let fetched = try await context.fetchPages(Set(hashes.filter { pages[$0] == nil }), bases: bases, reader: reader, summary: count)
        pages.merge(fetched) { cached, _ in cached }
        var total = PageCount()
        for page in pages.values { total += page }
        return (total, pages.mapValues(\.entries))
    }

    /// Whether a file of `report` failed; if so, tells the rollout gate (when this is the last
    /// server to try). No switch follows.
    func reportsFailure(in report: SyncReport, of channel: NewChannel) async throws -> Bool {
        guard let failure = report.files.first(where: { $0.outcome == .failed }) else { return false }
        if reportsFailure { try await self.report(.failed(reason: "\(failure.path): \(failure.error ?? "failed")"), about: channel.side.release) }
        return true
    }

    /// `hashes`, in order, in batches of at most `limit` entries (a larger page alone).
    static func batches(_ hashes: [String], entries: [String: Int], limit: Int = defaultEntriesPerBatch) -> [[String]] {
        var batches: [[String]] = []
        var (batch, size) = ([String](), 0)
        for sha256 in hashes {
            let count = entries[sha256] ?? 0
            if !batch.isEmpty, size + count > limit {
                batches.append(batch)
                (batch, size) = ([], 0)
            }
            batch.append(sha256)
            size += count
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }
}
