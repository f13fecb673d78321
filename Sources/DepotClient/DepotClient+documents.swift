import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The documents of a sync: the channel document, release documents and pages, each fetched
/// under the document limits (``Configuration/maximumDocumentBytes``, ``Configuration/documentTimeout``)
/// and checked against the hash that names it; a document held in an earlier version is asked
/// for as a patch from it first.
extension DepotClient {
    /// The channel document and its ETag, or `nil` when the server answered 304; with the bytes
    /// received.
    func fetchChannel(etag: String?, session: TransferSession) async throws -> (document: (ChannelDocument, String)?, bytes: Int64) {
        let path = try TreeObject.channel(configuration.channel).path
        var request = URLRequest(url: server.appendingPathComponent(path))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (http, data) = try await BoundedFetch.run(request, session: session, maximumBytes: 64 * 1024, deadline: configuration.documentTimeout)
        switch http.statusCode {
        case 304:
            return (nil, Int64(data.count))
        case 200:
            guard let document = try? JSONDecoder().decode(ChannelDocument.self, from: data) else {
                throw SyncError(.corrupt, "the channel document is not valid")
            }
            return ((document, http.value(forHTTPHeaderField: "ETag") ?? ""), Int64(data.count))
        case 404:
            throw SyncError(.server, "the channel \(configuration.channel) has no release (/\(path) answered 404)")
        default:
            throw SyncError(.server, "/\(path) answered \(http.statusCode)")
        }
    }

    /// The document `object`, checked to have the SHA-256 `sha256`, with the bytes received.
    /// With a `base` (an earlier version of the document, held), it is first asked for as a
    /// patch from it, `/deltas/{base}/{sha256}`: a few hundred bytes where the document is
    /// many kilobytes. A patch that fails in any way (a server without it or too busy to make it,
    /// a broken or slow transfer, a patch that does not make exactly `sha256`) costs that one
    /// request, and the whole document is fetched.
    func fetchDocument(
        _ object: TreeObject,
        sha256: String,
        base: (sha256: String, bytes: Data)?,
        session: TransferSession
    ) async throws -> (Data, Int64) {
        var received: Int64 = 0
        let path = object.path
        if let base {
            var request = URLRequest(url: server.appendingPathComponent(try TreeObject.delta(from: base.sha256, to: sha256).path))
            request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
            let fetch = BoundedFetch(maximumBytes: configuration.maximumDocumentBytes)
            let answer = try? await fetch.fetch(request, session: session, deadline: configuration.documentTimeout)
            received += fetch.bytesReceived
            if let (http, patch) = answer, http.statusCode == 200,
                let data = try? DeltaPatch.apply(patch, to: base.bytes, maximumSize: configuration.maximumDocumentBytes),
                Hex.string(SHA256.hash(data: data)) == sha256
            {
                return (data, received)
            }
        }
        var request = URLRequest(url: server.appendingPathComponent(path))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let (http, data) = try await BoundedFetch.run(
            request,
            session: session,
            maximumBytes: configuration.maximumDocumentBytes,
            deadline: configuration.documentTimeout
        )
        guard http.statusCode == 200 else { throw SyncError(.server, "/\(path) answered \(http.statusCode)") }
        guard Hex.string(SHA256.hash(data: data)) == sha256 else { throw SyncError(.corrupt, "/\(path) does not have the SHA-256 its name says") }
        return (data, received + Int64(data.count))
    }

    /// The release document `id`, from the folder's cache or the server (as a patch from the
    /// held release `base` when it can); with the bytes received.
    func fetchRelease(_ id: String, base: String?, session: TransferSession) async throws -> (ReleaseDocument, Int64) {
        if let held = cache.release(id) { return (held, 0) }
        let baseBytes = base.flatMap { base in cache.releaseBytes(base).map { (base, $0) } }
        let (data, received) = try await fetchDocument(try .release(id), sha256: id, base: baseBytes, session: session)
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: data), release.problem == nil else {
            throw SyncError(.corrupt, "the release \(id) is not a release document this client reads")
        }
        try cache.storeRelease(data, id: id)
        return (release, received)
    }

    /// Fetches and keeps the pages `hashes`, a few at a time, each as a patch from the held page
    /// `bases` names for it when there is one; returns the bytes received and the pages, decoded
    /// and checked.
    func fetchPages(
        _ hashes: Set<String>,
        bases: [String: String],
        session: TransferSession
    ) async throws -> (bytes: Int64, pages: [String: ReleasePage]) {
        let fetched = try await mapConcurrently(Array(hashes), width: configuration.parallelDownloads) { sha256 in
            let base = bases[sha256].flatMap { base in cache.pageBytes(base).map { (base, $0) } }
            let (data, received) = try await fetchDocument(try .page(sha256), sha256: sha256, base: base, session: session)
            guard let page = try? JSONDecoder().decode(ReleasePage.self, from: data) else {
                throw SyncError(.corrupt, "the page \(sha256) is not valid")
            }
            if let problem = page.problem { throw SyncError(.corrupt, "the page \(sha256) is refused: \(problem)") }
            try cache.storePage(data, sha256: sha256)
            return (sha256, page, received)
        }
        return (fetched.reduce(0) { $0 + $1.2 }, Dictionary(fetched.map { ($0.0, $0.1) }) { first, _ in first })
    }
}
