import DepotManifest
import DepotPolicy
import Foundation

/// The documents of a seed (``DepotClient/seed(from:)``): its release document and the pages the
/// plan compares, each checked against the SHA-256 that names it (``TreeReader``) and kept in
/// the folder's cache (``ReleaseCache``), as a sync keeps them, so that the next sync plans from
/// them: a delta.
struct SeedDocuments {
    let release: ReleaseDocument
    /// The pages of the release held and of the seed's that differ.
    let changed: (before: [String], after: [String])
    /// Every page needed: the changed ones and, with release folders, all of the seed's.
    let pages: [String: ReleasePage]
    let layout: FolderLayout

    /// Reads the release `side` names, and its pages, from `reader`; the pages of the release
    /// `held` from the folder's cache.
    ///
    /// - Throws: ``SyncError`` `.corrupt` when the seed lacks a document or one is not what its
    ///   name says; `.io` when the documents of the release held are not in the cache (a seed
    ///   has only its own).
    init(context: SyncContext, reader: TreeReader<BundleSource>, release side: RolloutSide, over held: HeldRelease?) async throws {
        guard let (release, bytes) = try await reader.release(side.release) else {
            throw SyncError(.corrupt, "the seed at \(reader.source.name) lacks release \(side.number), which its channel document names")
        }
        let cache = context.cache
        let before = held.flatMap { cache.release($0.id) }
        if let held, before == nil {
            throw SyncError(.io, "cannot seed over release \(held.number): its documents are not in \(context.directoryPath)/.depot: sync instead")
        }
        try cache.storeRelease(Data(bytes), id: side.release)
        changed = ReleasePlan.changedPages(from: before, to: release)
        var pages = [String: ReleasePage]()
        for sha256 in changed.before {
            guard let page = cache.page(sha256) else {
                let number = held?.number ?? 0
                throw SyncError(.io, "cannot seed over release \(number): its page \(sha256) is not in \(context.directoryPath)/.depot: sync instead")
            }
            pages[sha256] = page
        }
        let layout = context.configuration.layout
        for sha256 in Set(changed.after + (layout == .releaseFolders ? release.pages : [])) where pages[sha256] == nil {
            if let page = cache.page(sha256) {
                pages[sha256] = page
                continue
            }
            let (page, bytes) = try await reader.page(sha256)
            try cache.storePage(Data(bytes), sha256: sha256)
            pages[sha256] = page
        }
        self.release = release
        self.pages = pages
        self.layout = layout
    }

    private func page(_ sha256: String) throws -> ReleasePage {
        guard let page = pages[sha256] else { throw SyncError(.io, "the page \(sha256) of the seed was not read") }
        return page
    }

    /// What the seed's switch fetches from the bundle, and with release folders every entry of
    /// the seed's release: the files that changed from the release held, and, from the tree
    /// `tree` held, those the app altered there (``ReleaseTrees/altered(_:in:)``), as a sync
    /// plans them.
    func plan(for context: SyncContext, tree: String?) throws -> (ReleasePlan, entries: [ReleaseEntry]) {
        let (before, after) = (try changed.before.map(page), try changed.after.map(page))
        let entries = layout == .releaseFolders ? try release.pages.flatMap { try page($0).entries } : []
        let plan = try context.releasePlan(before: before, after: after, entries: entries, over: layout == .releaseFolders ? tree : nil).plan
        return (plan, entries)
    }
}
