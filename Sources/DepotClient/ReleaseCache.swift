import Crypto
import DepotHTTP
import DepotManifest
import Foundation

/// The release documents a sync folder holds, in `.depot/releases/{id}` and `.depot/pages/{sha256}`:
/// the release the folder is at, and the pages of the one being fetched. Content-addressed, so a
/// page shared by two releases is kept once, and what is read back is checked again.
struct ReleaseCache {
    let folder: URL

    var releasesFolder: URL { folder.appendingPathComponent("releases") }
    var pagesFolder: URL { folder.appendingPathComponent("pages") }

    func create() throws {
        try FileManager.default.createDirectory(at: releasesFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: pagesFolder, withIntermediateDirectories: true)
    }

    /// The release document `id`, when held and intact.
    func release(_ id: String) -> ReleaseDocument? {
        releaseBytes(id).flatMap { try? JSONDecoder().decode(ReleaseDocument.self, from: $0) }
    }

    /// The page `sha256`, when held and intact.
    func page(_ sha256: String) -> ReleasePage? {
        pageBytes(sha256).flatMap { try? JSONDecoder().decode(ReleasePage.self, from: $0) }
    }

    /// The bytes of the release document `id`, when held and intact: the base of a patch.
    func releaseBytes(_ id: String) -> Data? { read(releasesFolder.appendingPathComponent(id), sha256: id) }

    /// The bytes of the page `sha256`, when held and intact: the base of a patch.
    func pageBytes(_ sha256: String) -> Data? { read(pagesFolder.appendingPathComponent(sha256), sha256: sha256) }

    /// Keeps bytes already checked to have the SHA-256 `id`. Not fsynced: what a crash loses
    /// or damages fails its check on reading and is fetched again; the switch makes the cache
    /// durable with the staged files.
    func storeRelease(_ bytes: Data, id: String) throws {
        try AtomicFile.write(bytes, to: releasesFolder.appendingPathComponent(id), durable: false)
    }

    /// Not with `Data.write(options: .atomic)`, which fsyncs each file (256 pages of a first
    /// sync).
    func storePage(_ bytes: Data, sha256: String) throws {
        try AtomicFile.write(bytes, to: pagesFolder.appendingPathComponent(sha256), durable: false)
    }

    /// Forgets release documents other than `id`, and the pages `release` does not list among
    /// `candidates` (the pages that changed): O(change), not O(catalog).
    func forget(releasesOtherThan id: String, pages candidates: Set<String>, keeping release: ReleaseDocument) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: releasesFolder.path)) ?? []
        for name in names where name != id {
            try? FileManager.default.removeItem(at: releasesFolder.appendingPathComponent(name))
        }
        let kept = Set(release.pages)
        for page in candidates where !kept.contains(page) {
            try? FileManager.default.removeItem(at: pagesFolder.appendingPathComponent(page))
        }
    }

    private func read(_ url: URL, sha256: String) -> Data? {
        guard let data = try? Data(contentsOf: url), Hex.string(SHA256.hash(data: data)) == sha256 else { return nil }
        return data
    }
}
