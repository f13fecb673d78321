import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DepotClient {
    /// The channel document and its ETag, or `nil` when the server answered 304; with the bytes
    /// received.
    func fetchChannel(etag: String?, session: TransferSession) async throws -> (document: (ChannelDocument, String)?, bytes: Int64) {
        let path = "channels/\(configuration.channel)"
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

    /// The document `/{path}`, checked to have the SHA-256 `sha256`, with the bytes received.
    /// With a `base` (an earlier version of the document, held), it is first asked for as a
    /// patch from it, `/deltas/{base}/{sha256}`: a few hundred bytes where the document is
    /// many kilobytes. A patch that fails in any way (a server without it or too busy to make it,
    /// a broken or slow transfer, a patch that does not make exactly `sha256`) costs that one
    /// request, and the whole document is fetched.
    func fetchDocument(_ path: String, sha256: String, base: (sha256: String, bytes: Data)?, session: TransferSession) async throws -> (Data, Int64) {
        var received: Int64 = 0
        if let base {
            var request = URLRequest(url: server.appendingPathComponent("deltas/\(base.sha256)/\(sha256)"))
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
        let (data, received) = try await fetchDocument("releases/\(id)", sha256: id, base: baseBytes, session: session)
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: data), release.format == ReleaseDocument.currentFormat,
            release.pages.count == 1 << min(max(release.pageBits, 0), ReleasePaging.maximumBits),
            release.pages.allSatisfy(ContentAddress.isSHA256)
        else {
            throw SyncError(.corrupt, "the release \(id) is not a release document this client reads")
        }
        try cache.storeRelease(data, id: id)
        return (release, received)
    }

    /// Fetches and keeps the pages `hashes`, a few at a time, each as a patch from the held page
    /// `bases` names for it when there is one; returns the bytes received.
    func fetchPages(_ hashes: Set<String>, bases: [String: String], session: TransferSession) async throws -> Int64 {
        try await forEach(Array(hashes), concurrently: configuration.parallelDownloads) { sha256 in
            let base = bases[sha256].flatMap { base in cache.pageBytes(base).map { (base, $0) } }
            let (data, received) = try await fetchDocument("pages/\(sha256)", sha256: sha256, base: base, session: session)
            guard let page = try? JSONDecoder().decode(ReleasePage.self, from: data) else {
                throw SyncError(.corrupt, "the page \(sha256) is not valid")
            }
            if let bad = page.entries.first(where: { $0.problem != nil }) {
                throw SyncError(.corrupt, "the page \(sha256) lists \(bad.path): \(bad.problem!)")
            }
            try cache.storePage(data, sha256: sha256)
            return received
        }.reduce(0, +)
    }

    /// Fetches and verifies every file of `fetches` into `.depot/staging/{sha256}`, a few at a
    /// time; a file that fails is reported as failed and the others go on.
    func stage(_ fetches: [ReleasePlan.Fetch], session: TransferSession, progress: (@Sendable (Progress) -> Void)?) async -> [SyncReport.File] {
        (try? await forEach(fetches, concurrently: configuration.parallelDownloads) { fetch in
            await stage(fetch, session: session, progress: progress)
        }) ?? []
    }

    /// One file: carries out ``ReleasePlan/Fetch/action(stagedIntact:heldFileSize:patchFailed:inMemoryLimit:)``,
    /// falling back to a download when a patch fails.
    func stage(_ fetch: ReleasePlan.Fetch, session: TransferSession, progress: (@Sendable (Progress) -> Void)?) async -> SyncReport.File {
        let entry = fetch.entry
        var file = SyncReport.File(path: entry.path, outcome: .staged, bytesTransferred: 0, size: entry.size)
        let staged = stagingFolder.appendingPathComponent(entry.sha256)
        // Staged by a sync that stopped before its switch, maybe before its writes were durable:
        // checked again, and downloaded again unless intact.
        var stagedIntact = false
        if FileManager.default.fileExists(atPath: staged.path) {
            if let (sha256, size) = try? Self.digest(of: staged), sha256 == entry.sha256, size == entry.size {
                stagedIntact = true
            } else {
                try? FileManager.default.removeItem(at: staged)
            }
        }
        var patchFailed = false
        do {
            let local = try localURL(for: entry.path)
            let heldFileSize = try? FileManager.default.attributesOfItem(atPath: local.path)[.size] as? Int64
            while true {
                switch fetch.action(
                    stagedIntact: stagedIntact,
                    heldFileSize: heldFileSize,
                    patchFailed: patchFailed,
                    inMemoryLimit: Self.inMemoryLimit
                ) {
                case .alreadyStaged:
                    return file
                case .patch(let patch):
                    do {
                        file.bytesTransferred = try await fetchPatch(patch, for: entry, base: local, to: staged, session: session, progress: progress)
                        file.outcome = .delta
                        return file
                    } catch {
                        // Any failure of the patch path falls back to the full download.
                        file.bytesTransferred = (error as? DeltaFailure)?.bytesTransferred ?? 0
                        patchFailed = true
                    }
                case .download(let gzip):
                    let length = gzip ? entry.gzip?.size ?? entry.size : entry.size
                    let (outcome, transferred) = try await downloadInMemory(
                        entry,
                        gzip: gzip,
                        length: length,
                        to: staged,
                        session: session,
                        progress: progress
                    )
                    file.outcome = outcome
                    file.bytesTransferred += transferred
                    return file
                case .stream(let gzip):
                    let (outcome, transferred) = try await stream(entry, gzip: gzip, to: staged, session: session, progress: progress)
                    file.outcome = outcome
                    file.bytesTransferred += transferred
                    return file
                }
            }
        } catch {
            file.outcome = .failed
            file.error = "\(error)"
        }
        return file
    }

    /// Downloads `entry` (the gzip variant when `gzip`) to a partial file, resumed from what an
    /// earlier sync left there, verifies it and leaves it at `staged`.
    func stream(
        _ entry: ReleaseEntry,
        gzip useGzip: Bool,
        to staged: URL,
        session: TransferSession,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> (SyncReport.Outcome, Int64) {
        let download =
            if useGzip, let gzip = entry.gzip, let url = entry.gzipURL {
                try blobDownload(url, sha256: gzip.sha256, size: gzip.size, partialName: "\(gzip.sha256).gz.partial")
            } else {
                try blobDownload(entry.blobURL, sha256: entry.sha256, size: entry.size, partialName: "\(entry.sha256).partial")
            }
        let (outcome, transferred) = try await run(download, for: entry.path, session: session, progress: progress)
        let verified = staged.appendingPathExtension("verifying")
        do {
            try verifyAndStage(download.partialFile, gzip: useGzip, entry: entry, to: verified)
        } catch {
            // A download that does not match the release is worthless: start afresh next time.
            try? FileManager.default.removeItem(at: download.partialFile)
            try? FileManager.default.removeItem(at: verified)
            throw error
        }
        try setModificationDate(of: verified, to: entry)
        try Durability.rename(verified, to: staged)
        try? FileManager.default.removeItem(at: download.partialFile)
        switch outcome {
        case .resumed: return (.resumed, transferred)
        case .full, .alreadyComplete: return (useGzip ? .gzip : .full, transferred)
        }
    }

    /// Files whose download is at most this many bytes are fetched into memory and written once:
    /// no partial file, which a download this small would not resume anyway.
    static let inMemoryLimit: Int64 = 256 * 1024

    /// Downloads a small `entry` into memory, checks it and writes it at `staged`.
    func downloadInMemory(
        _ entry: ReleaseEntry,
        gzip: Bool,
        length: Int64,
        to staged: URL,
        session: TransferSession,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> (SyncReport.Outcome, Int64) {
        var request = URLRequest(url: try blobURL(gzip ? entry.gzipURL ?? entry.blobURL : entry.blobURL))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let http: HTTPURLResponse
        let data: Data
        do {
            (http, data) = try await BoundedFetch.run(request, session: session, maximumBytes: Int(length))
        } catch let error as SyncError where error.code == .corrupt {
            throw SyncError(.corrupt, "\(request.url?.path ?? "the download") is longer than the \(length) bytes the release says")
        }
        guard http.statusCode == 200 else { throw SyncError(.server, "\(request.url?.path ?? "") answered \(http.statusCode)") }
        progress?(Progress(path: entry.path, bytesReceived: Int64(data.count), bytesExpected: length))
        var content = Data()
        var pending: Data? = data
        func next() -> Data? {
            defer { pending = nil }
            return pending
        }
        try decodeChecked(gzip: gzip, entry: entry, chunks: next) { content.append($0) }
        let verified = staged.appendingPathExtension("verifying")
        try Durability.write(content, to: verified)
        try setModificationDate(of: verified, to: entry)
        try Durability.rename(verified, to: staged)
        return (gzip ? .gzip : .full, Int64(data.count))
    }

    /// Downloads `patch` (resumable like any blob), checks its SHA-256, applies it to the file
    /// held at `base`, checks the result and leaves it at `staged`. Returns the bytes received;
    /// throws ``DeltaFailure`` with them otherwise.
    func fetchPatch(
        _ patch: ReleaseEntry.Patch,
        for entry: ReleaseEntry,
        base: URL,
        to staged: URL,
        session: TransferSession,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> Int64 {
        let download = try blobDownload(entry.patchURL(patch), sha256: patch.sha256, size: patch.size, partialName: "\(patch.sha256).delta.partial")
        var transferred: Int64 = 0
        let patched = staged.appendingPathExtension("patched")
        let verified = staged.appendingPathExtension("verifying")
        defer {
            try? FileManager.default.removeItem(at: download.partialFile)
            try? FileManager.default.removeItem(at: patched)
            try? FileManager.default.removeItem(at: verified)
        }
        do {
            (_, transferred) = try await run(download, for: entry.path, session: session, progress: progress)
            let bytes = try Data(contentsOf: download.partialFile)
            guard Hex.string(SHA256.hash(data: bytes)) == patch.sha256 else {
                throw SyncError(.corrupt, "the patch for \(entry.path) does not match the release")
            }
            try DeltaPatch.apply(base: base, patch: download.partialFile, output: patched, maximumSize: Int(entry.size))
            try verifyAndStage(patched, gzip: false, entry: entry, to: verified)
            try setModificationDate(of: verified, to: entry)
            try Durability.rename(verified, to: staged)
            return transferred
        } catch {
            throw DeltaFailure(cause: error, bytesTransferred: transferred)
        }
    }

    /// The SHA-256 and size of a file.
    static func digest(of url: URL) throws -> (String, Int64) {
        let input = try FileHandle(forReadingFrom: url)
        defer { try? input.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try input.read(upToCount: 256 * 1024), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (Hex.string(hasher.finalize()), size)
    }

    /// A resumable download of the immutable URL `url`, whose bytes have this SHA-256 and size.
    func blobDownload(_ url: String, sha256: String, size: Int64, partialName: String) throws -> BlobDownload {
        BlobDownload(
            url: try blobURL(url),
            entityTag: "\"\(sha256)\"",
            expectedLength: size,
            partialFile: partialFolder.appendingPathComponent(partialName)
        )
    }

    /// Runs `download`, reporting progress under `path`.
    func run(
        _ download: BlobDownload,
        for path: String,
        session: TransferSession,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> (BlobDownload.Outcome, Int64) {
        let counter = ByteCounter()
        let expected = download.expectedLength
        return try await download.run(session: session) { count in
            progress?(Progress(path: path, bytesReceived: counter.add(count), bytesExpected: expected))
        }
    }

    /// Gives a staged file the entry's `Last-Modified` as its modification time.
    func setModificationDate(of staged: URL, to entry: ReleaseEntry) throws {
        if let modified = entry.modifiedSeconds {
            try? FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: TimeInterval(modified))],
                ofItemAtPath: staged.path
            )
        }
    }

    /// Decodes (for gzip) or copies the download into `staged`, checking size and SHA-256 against
    /// the entry. Throws ``SyncError`` `.corrupt` on any mismatch. Not fsynced: staged files are
    /// made durable together before the switch (``Durability``).
    func verifyAndStage(_ partial: URL, gzip: Bool, entry: ReleaseEntry, to staged: URL) throws {
        try Durability.write(Data(), to: staged)
        let input = try FileHandle(forReadingFrom: partial)
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: staged)
        defer { try? output.close() }
        func next() throws -> Data? { try input.read(upToCount: 256 * 1024) }
        try decodeChecked(gzip: gzip, entry: entry, chunks: next) { try output.write(contentsOf: $0) }
    }

    /// Passes the content of `entry` to `write`, from the downloaded `chunks` (gunzipped when
    /// `gzip`), checking it against the entry's size as it goes and its SHA-256 at the end: the
    /// one check of every download, streamed or in memory. Throws ``SyncError`` `.corrupt` on any
    /// mismatch.
    func decodeChecked(gzip: Bool, entry: ReleaseEntry, chunks next: () throws -> Data?, write: (Data) throws -> Void) throws {
        var hasher = SHA256()
        var size: Int64 = 0
        let inflater = gzip ? try GzipInflater() : nil
        func take(_ data: Data) throws {
            size += Int64(data.count)
            guard size <= entry.size else { throw SyncError(.corrupt, "\(entry.path) is larger than the release says") }
            hasher.update(data: data)
            try write(data)
        }
        do {
            while let chunk = try next(), !chunk.isEmpty {
                if let inflater { try chunk.withUnsafeBytes { try inflater.decode($0) { try take(Data($0)) } } } else { try take(chunk) }
            }
        } catch let error as GzipError {
            throw SyncError(.corrupt, "the gzip data of \(entry.path) is corrupt: \(error.message)")
        }
        if let inflater, !inflater.isFinished { throw SyncError(.corrupt, "the gzip data of \(entry.path) is truncated") }
        let digest = Hex.string(hasher.finalize())
        guard size == entry.size, digest == entry.sha256 else {
            throw SyncError(.corrupt, "\(entry.path) does not match the release (SHA-256 \(digest), \(size) bytes)")
        }
    }

    /// A URL of the server: a path such as `/blobs/…`, taken below the server URL (which may
    /// have a path of its own, behind a proxy); refuses one that leads to another origin.
    func blobURL(_ path: String) throws -> URL {
        let relative = path.hasPrefix("/") && !path.hasPrefix("//") ? String(path.dropFirst()) : path
        guard let url = URL(string: relative, relativeTo: server)?.absoluteURL, OriginPolicy.isSameOrigin(url, as: server) else {
            throw SyncError(.corrupt, "the release has an invalid URL: \(path)")
        }
        return url
    }
}

/// Runs `body` for every element, at most `width` at once; returns the results in order.
func forEach<Element: Sendable, Result: Sendable>(
    _ elements: [Element],
    concurrently width: Int,
    _ body: @escaping @Sendable (Element) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: elements.count)
        var next = 0
        for _ in 0..<min(max(1, width), elements.count) {
            let index = next
            group.addTask { (index, try await body(elements[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < elements.count {
                let index = next
                group.addTask { (index, try await body(elements[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}

/// A running total shared with a download's delegate queue.
final class ByteCounter: Sendable {
    private let total = Mutex<Int64>(0)

    func add(_ count: Int64) -> Int64 {
        total.withLock {
            $0 += count
            return $0
        }
    }
}

/// Why the patch path of a file failed, and what it had received: the sync then downloads the
/// file whole and counts both.
struct DeltaFailure: Error {
    let cause: any Error
    let bytesTransferred: Int64
}
