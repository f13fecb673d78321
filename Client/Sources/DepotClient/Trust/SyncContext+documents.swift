import DepotConcurrency
import DepotManifest
import Foundation

/// The documents of a sync, read through the one checked path (``TreeReader``) from the
/// sync's server; what the folder's cache holds (checked when kept) is not fetched again, and
/// what is fetched is kept there.
extension SyncContext {
    /// The release document `id`, from the folder's cache or the server (as a patch from the
    /// held release `base` when it can).
    func fetchRelease(_ id: String, base: String?, reader: TreeReader<SessionSource>) async throws -> ReleaseDocument {
        if let held = cache.release(id) { return held }
        let baseBytes = base.flatMap { base in cache.releaseBytes(base).map { (base, [UInt8]($0)) } }
        guard let (release, bytes) = try await reader.release(id, base: baseBytes) else {
            throw SyncError(.server, "\(reader.source.location(of: try TreeObject.release(id))) answered 404")
        }
        try cache.storeRelease(Data(bytes), id: id)
        return release
    }

    /// Fetches and keeps the pages `hashes`, a few at a time, each as a patch from the held page
    /// `bases` names for it when there is one; returns them decoded and checked.
    func fetchPages(_ hashes: Set<String>, bases: [String: String], reader: TreeReader<SessionSource>) async throws -> [String: ReleasePage] {
        try await fetchPages(hashes, bases: bases, reader: reader) { $0 }
    }

    /// Fetches and keeps the pages `hashes` as ``fetchPages(_:bases:reader:)`` does; returns
    /// what `summary` makes of each, decoded and checked, instead of the page, which goes: a
    /// sync a few pages at a time reads them again from the cache.
    func fetchPages<Summary: Sendable>(
        _ hashes: Set<String>,
        bases: [String: String],
        reader: TreeReader<SessionSource>,
        summary: @escaping @Sendable (ReleasePage) throws -> Summary
    ) async throws -> [String: Summary] {
        let fetched = try await mapConcurrently(Array(hashes), width: configuration.parallelDownloads) { sha256 in
            let base = bases[sha256].flatMap { base in cache.pageBytes(base).map { (base, [UInt8]($0)) } }
            let (page, bytes) = try await reader.page(sha256, base: base)
            try cache.storePage(Data(bytes), sha256: sha256)
            return (sha256, try summary(page))
        }
        return Dictionary(fetched) { first, _ in first }
    }
}
