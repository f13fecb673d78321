import DepotManifest
import DepotPolicy
import Foundation

/// The documents a new release's plan compares (``SyncAttempt/documents(of:from:)``).
struct ReleaseDocuments {
    let release: ReleaseDocument
    /// The pages of the release held and of the new one that differ, by SHA-256.
    let changed: (before: [String], after: [String])
    /// Every page needed, decoded once: the changed ones and, with release folders, every page
    /// of the new release (its tree is made of all its files).
    let pages: [String: ReleasePage]

    func page(_ sha256: String) throws -> ReleasePage {
        guard let page = pages[sha256] else { throw SyncError(.io, "the page \(sha256) is missing from \(ReleaseCache.pages)") }
        return page
    }
}

/// What a sync fetches and from what (``SyncAttempt/plan(_:of:from:)``).
struct PlannedSync {
    var plan: ReleasePlan
    /// The release the folder would hold.
    let next: HeldRelease
    /// The new release's changed pages: their packs carry its small files.
    var afterPages: [(sha256: String, page: ReleasePage)]
    /// The changed pages of the release held: forgotten once the new one is applied.
    let pagesBefore: [String]
    /// With release folders, every entry of the new release, and what the tree held gives it.
    let entries: [ReleaseEntry]
    let carried: ReleaseTrees.Carried
    /// The folder of the files held (``SyncContext/contentPath(tree:)``).
    let contentPath: String
    /// What the plan and the stager learn of the local copies, shared (in a paged sync, by its
    /// estimate and every batch).
    var localCopies = LocalCopies()
    /// The switch's moves and the bytes of the files fetched, once the pages are let go
    /// (``forgetPages()``).
    var kept: (moves: [ReleaseJournal.Move], fetchedBytes: Int64)? = nil

    /// The switch's renames (``ReleasePlan/moves``).
    var moves: [ReleaseJournal.Move] { kept?.moves ?? plan.moves }
    /// The size of the files fetched (new or changed), in bytes.
    var fetchedBytes: Int64 { kept?.fetchedBytes ?? plan.fetches.reduce(0) { $0 + $1.entry.size } }

    /// Once every file is staged: keeps the switch's moves and lets the fetches and the pages go,
    /// and with them the release's entries (a few hundred bytes each), which the switch does
    /// not need. With release folders the tree is built from every entry, and they stay.
    mutating func forgetPages() {
        guard entries.isEmpty, kept == nil else { return }
        kept = (plan.moves, fetchedBytes)
        plan.fetches = []
        afterPages = []
    }
}

extension SyncAttempt {
    /// The release document, and the pages to compare: each from the folder's cache when held
    /// intact (a crash can lose unsynced ones), else fetched, as a patch from the page held when
    /// it can.
    func documents(of channel: NewChannel, from start: SyncStart) async throws -> ReleaseDocuments {
        let release = try await context.fetchRelease(channel.side.release, base: start.placed?.id, reader: reader)
        let before = start.placed.flatMap { context.cache.release($0.id) }
        let changed = ReleasePlan.changedPages(from: before, to: release)
        let needed = Set(changed.before + (context.configuration.layout == .releaseFolders ? release.pages : changed.after))
        var pages = [String: ReleasePage]()
        for sha256 in needed { pages[sha256] = context.cache.page(sha256) }
        let fetched = try await context.fetchPages(needed.filter { pages[$0] == nil }, bases: release.pageBases(from: before), reader: reader)
        pages.merge(fetched) { cached, _ in cached }
        return ReleaseDocuments(release: release, changed: changed, pages: pages)
    }

    /// Compares the changed pages (``ReleasePlan``). With release folders, every file the release
    /// keeps is carried over from the tree held, and one the app changed there is fetched
    /// instead (``ReleaseTrees/altered(_:in:)``).
    func plan(_ documents: ReleaseDocuments, of channel: NewChannel, from start: SyncStart) throws -> PlannedSync {
        let afterPages = try documents.changed.after.map { (sha256: $0, page: try documents.page($0)) }
        let before = try documents.changed.before.map { try documents.page($0) }
        let entries = context.configuration.layout == .releaseFolders ? try documents.release.pages.flatMap { try documents.page($0).entries } : []
        let (plan, carried) = try context.releasePlan(
            before: before,
            after: afterPages.map(\.page),
            entries: entries,
            over: start.placed == nil ? nil : start.tree
        )
        var next = channel.next
        next.files = documents.release.files
        return PlannedSync(
            plan: plan,
            next: next,
            afterPages: afterPages,
            pagesBefore: documents.changed.before,
            entries: entries,
            carried: carried,
            contentPath: context.contentPath(tree: start.tree)
        )
    }

    /// Whether the sync estimates its whole plan before staging (``estimate(_:ways:of:)``, or a batch
    /// at a time in a paged sync): for a check, a budget or a progress stream.
    func readsAhead(_ channel: NewChannel) -> Bool {
        goal == .check || context.configuration.transferBudget(critical: channel.side.critical) != nil || progress.overall != nil
    }

    /// What an estimate of `planned` weighs (``estimate(_:ways:of:)``), fetched: the ways of its
    /// fetches, and the block indexes they would rebuild from, matched against the local copies
    /// and kept in `planned.localCopies` for the stager. The only network of an estimate.
    func readAhead(_ planned: PlannedSync) async throws -> [UpdatePlan.Way] {
        let folder = try context.folder.open()
        let contentPath = planned.contentPath
        let ways = try UpdatePlan.ways(
            of: planned.plan,
            staging: StagingFolder(folder),
            localFile: { try LocalPath.file(for: $0, in: contentPath, folder: folder) },
            localCopies: planned.localCopies
        )
        let blocks = BlockFetch(server: server, session: session, width: context.configuration.parallelDownloads)
        for way in ways {
            // In the stager's order, up to the first rebuild worth its bytes: one that fails (or
            // is not worth it) is not weighed, and the next way is, as the stager takes it.
            for question in way.blockQuestions {
                let matched = try? await planned.localCopies.match(question.entry, at: question.local) {
                    try await blocks.match(question.entry, from: question.local, budget: question.budget, received: ByteCounter())
                }
                if matched != nil { break }
            }
        }
        return ways
    }

    /// What the fetches are expected to transfer and the space they need (``UpdatePlan``), from
    /// what ``readAhead(_:)`` fetched: no network.
    ///
    /// - Throws: ``SyncError`` `.overBudget` when a download or sync would transfer more than
    ///   the budget.
    func estimate(_ planned: PlannedSync, ways: [UpdatePlan.Way], of channel: NewChannel) throws -> UpdatePlan {
        let update = try updatePlan(planned, ways: ways, of: channel)
        if goal != .check { try holdToBudget(expected: update.expectedBytes, of: channel, release: planned.next.number) }
        return update
    }

    /// The ``UpdatePlan`` of `planned`'s fetches, their `ways` read ahead: each file's way and
    /// expected bytes, as the stager would take it (the block matches kept in
    /// `planned.localCopies`).
    func updatePlan(_ planned: PlannedSync, ways: [UpdatePlan.Way], of channel: NewChannel) throws -> UpdatePlan {
        let localCopies = planned.localCopies
        var update = UpdatePlan(
            ways,
            removals: planned.plan.removals.map(\.path),
            release: planned.next,
            rollout: channel.side,
            document: channel.document,
            staging: StagingFolder(try context.folder.open()),
            blocks: { question in
                localCopies.matched(question.entry, at: question.local).map(\.expected)
            },
            packs: planned.afterPages
        )
        update.copiedBytes = planned.carried.copiedBytes
        return update
    }

    /// Refuses a download or sync of `channel`'s release expected to transfer more than its
    /// budget (``DepotClient/Configuration/transferBudget(critical:)``), and holds the session's transfers to it.
    ///
    /// - Throws: ``SyncError`` `.overBudget`.
    func holdToBudget(expected: Int64, of channel: NewChannel, release: Int64) throws {
        guard let budget = context.configuration.transferBudget(critical: channel.side.critical) else { return }
        guard expected <= budget else { throw SyncError.overBudget(expected: expected, budget: budget, release: release) }
        session.limitTransfers(to: budget)
    }
}
