import Crypto
import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

/// The release documents a sync folder holds, in `.depot/releases/{id}` and `.depot/pages/{sha256}`:
/// the release the folder is at, and the pages of the one being fetched. Content-addressed, so a
/// page shared by two releases is kept once, and what is read back is checked again. Read,
/// written and forgotten through the sync folder's descriptor (``SyncFolder``).
struct ReleaseCache {
    static let releases = ".depot/releases"
    static let pages = ".depot/pages"

    let folder: SyncFolder

    /// The release document `id`, when held and intact.
    func release(_ id: String) -> ReleaseDocument? {
        releaseBytes(id).flatMap { try? JSONDecoder().decode(ReleaseDocument.self, from: $0) }
    }

    /// The page `sha256`, when held and intact.
    func page(_ sha256: String) -> ReleasePage? {
        pageBytes(sha256).flatMap { try? JSONDecoder().decode(ReleasePage.self, from: $0) }
    }

    /// The bytes of the release document `id`, when held and intact: the base of a patch.
    func releaseBytes(_ id: String) -> Data? { read(Self.releases + "/" + id, sha256: id) }

    /// The bytes of the page `sha256`, when held and intact: the base of a patch.
    func pageBytes(_ sha256: String) -> Data? { read(Self.pages + "/" + sha256, sha256: sha256) }

    /// Keeps bytes already checked to have the SHA-256 `id`. Not fsynced (nor is each page:
    /// 256 pages of a first sync): what a crash loses or damages fails its check on reading and
    /// is fetched again; the switch makes the cache durable with the staged files.
    func storeRelease(_ bytes: Data, id: String) throws {
        try folder.with { try $0.replace(Self.releases + "/" + id, with: Array(bytes), durable: false) }
    }

    func storePage(_ bytes: Data, sha256: String) throws {
        try folder.with { try $0.replace(Self.pages + "/" + sha256, with: Array(bytes), durable: false) }
    }

    /// Forgets release documents other than `id` and the previous release's
    /// (``SyncState/previous``: a sync after ``DepotClient/revert()`` plans from it), and the
    /// pages neither lists among `candidates` (the pages that changed) and those of the
    /// documents forgotten: O(change), not O(catalog).
    func forget(releasesOtherThan id: String, pages candidates: Set<String>, keeping release: ReleaseDocument) {
        let previous = SyncState.load(from: folder).previous.flatMap { held in self.release(held.release.id).map { (held.release.id, $0) } }
        try? folder.with { folder in
            var candidates = candidates
            for name in try folder.names(in: Self.releases) where name != id && name != previous?.0 {
                if previous != nil { candidates.formUnion(self.release(name)?.pages ?? []) }
                try? folder.remove(Self.releases + "/" + name)
            }
            let kept = Set(release.pages + (previous?.1.pages ?? []))
            for page in candidates where !kept.contains(page) { try? folder.remove(Self.pages + "/" + page) }
        }
    }

    private func read(_ path: String, sha256: String) -> Data? {
        guard let bytes = try? folder.with({ try $0.read(path) }), Hex.string(SHA256.hash(data: bytes)) == sha256 else { return nil }
        return Data(bytes)
    }
}
