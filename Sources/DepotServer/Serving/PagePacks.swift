import DepotConnection
import DepotExport
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import Hummingbird
import NIOCore

/// The packs of release pages, `/packs/{page sha256}` and `/packs/{page sha256}.br`: a page's
/// small files in one download, so that a client fetching thousands of them makes one request a
/// page. Anyone may ask for any stored page's packs, so each is made once (``ComputeOnce``: one
/// computation however many ask at once, a bound on those computing and waiting, threads of its
/// own) and kept: stored as a blob and recorded against its page in the catalog
/// (``DepotStore/Catalog/recordPagePack(_:now:)``), "would save nothing" included, served from
/// that file from then on, across restarts, and removed with its page. A function of the page,
/// immutable like it.
final class PagePacks: Sendable {
    /// One pack of one page.
    struct Key: Hashable, Sendable {
        let page: String
        let kind: PagePackRecord.Kind
    }

    /// What a computation made, on a computing thread.
    enum Made: Sendable {
        case bytes([UInt8])
        /// A brotli pack that would save nothing.
        case savesNothing
        /// A blob the page names is no longer stored: nothing is kept, a later request tries again.
        case memberMissing
    }

    /// A pack as kept, or why there is none.
    enum Outcome: Sendable {
        case stored(PagePackRecord)
        case memberMissing
    }

    let content: PublishedContent
    let metrics: DepotMetrics
    /// Makes the packs: a service the server runs.
    let work: ComputeOnce<Key, Outcome>

    init(content: PublishedContent, limits: ComputeLimits, metrics: DepotMetrics) {
        self.content = content
        self.metrics = metrics
        work = ComputeOnce(limits: limits)
    }

    /// The pack `object` names (`/packs/{page}`, or `/packs/{page}.br`, the brotli one) of a
    /// stored page: from the resource cache, else from its kept blob, else made once and kept.
    /// `nil` (404) when there is no such page, a blob it names is no longer stored, or (`.br`)
    /// it would save nothing.
    ///
    /// - Throws: `HTTPError` 503 with `Retry-After` when too many packs are being made.
    func pack(_ object: TreeObject) async throws -> Resource? {
        guard let sha256 = object.address, [.pack, .brotliPack].contains(object.kind) else { return nil }
        let kind: PagePackRecord.Kind = object.kind == .brotliPack ? .br : .identity
        return try await content.entry(for: .object(object)) { [self] in
            guard let (document, page) = try await storedPage(sha256) else { return nil }
            let answer = try await work.value(
                for: Key(page: sha256, kind: kind),
                kept: { [blobs = content.blobs] in try await blobs.pagePack(page: sha256, kind: kind).map(Outcome.stored) },
                compute: { [store = content.store] in try Self.make(kind, of: page, reading: try store.reader()) },
                keep: { [self] made in try await keep(made, page: sha256, kind: kind) }
            )
            guard case .value(let outcome) = answer else { throw HTTPError.busy(making: "packs") }
            guard case .stored(let record) = outcome, let stored = record.stored else { return nil }
            return ResourceCache.Entry(
                Resource(
                    identity: .init(storage: .file(content.store.path(forSHA256: stored.sha256)), length: stored.size, sha256: stored.sha256),
                    contentType: kind == .br ? ContentCoding.br.mediaType : "application/octet-stream",
                    lastModified: HTTPDate(secondsSince1970: document.createdAt),
                    lastModifiedIsStrong: true,
                    cacheControl: content.cachePolicy.blobs
                )
            )
        }?.resource
    }

    /// The stored page `sha256`, as stored and decoded; `nil` when there is none.
    private func storedPage(_ sha256: String) async throws -> (document: ReleaseStore.StoredDocument, page: ReleasePage)? {
        guard ContentAddress.isSHA256(sha256), let document = try await content.releases.pageDocument(sha256: sha256),
            let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(document.bytes))
        else { return nil }
        return (document, page)
    }

    /// Makes the pack `kind` of `page` from the stored blobs. Blocking: on a computing thread.
    static func make(_ kind: PagePackRecord.Kind, of page: ReleasePage, reading blobs: BlobStore.Reader) throws -> Made {
        switch kind {
        case .identity:
            return try PublishedContent.packBytes(of: page, reading: blobs).map(Made.bytes) ?? .memberMissing
        case .br:
            do {
                return try PublishedContent.brotliPackBytes(of: page, reading: blobs).map(Made.bytes) ?? .savesNothing
            } catch is BrotliPack.MissingMember {
                return .memberMissing
            }
        }
    }

    /// Keeps what was made: its blob stored and recorded against its page (collection keeps it
    /// while the page is stored), or the record that it would save nothing.
    private func keep(_ made: Made, page: String, kind: PagePackRecord.Kind) async throws -> Outcome {
        metrics.recordPackMade(kind)
        let store = content.store
        let stored: ContentVariantRecord.Stored?
        switch made {
        case .memberMissing: return .memberMissing
        case .savesNothing: stored = nil
        case .bytes(let bytes):
            let blob = try await store.ingest(
                AsyncStream {
                    $0.yield(ByteBuffer(bytes: bytes))
                    $0.finish()
                },
                compresses: false
            )
            stored = ContentVariantRecord.Stored(sha256: blob.sha256, size: blob.size)
        }
        // Recorded while the blob is held, so that collection cannot remove it in between.
        defer { if let stored { store.release(stored.sha256) } }
        let record = PagePackRecord(page: page, kind: kind, stored: stored)
        guard try await content.blobs.recordPagePack(record, now: .now()) else { return .memberMissing }
        return .stored(record)
    }
}
