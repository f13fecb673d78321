import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the files of a release into `.depot/staging/{sha256}`, each by what its plan says
/// (``ReleasePlan/Fetch/action(stagedIntact:heldFileSize:patchFailed:inMemoryLimit:)``): a patch
/// of the file held, a download into memory, or a resumable stream to a partial file; every one
/// checked against its entry (``StagedContent``) before it is staged.
struct FileStager: Sendable {
    /// The server the release's URLs are below.
    let server: URL
    let stagingFolder: URL
    let partialFolder: URL
    /// The folder's file for a release path (``DepotClient/localURL(for:)``).
    let localURL: @Sendable (String) throws -> URL
    /// Files fetched at once.
    let parallelDownloads: Int
    let session: TransferSession
    let progress: (@Sendable (DepotClient.Progress) -> Void)?

    /// Fetches and verifies every file of `fetches` into `.depot/staging/{sha256}`, a few at a
    /// time; a file that fails is reported as failed and the others go on.
    func stage(_ fetches: [ReleasePlan.Fetch]) async -> [SyncReport.File] {
        (try? await mapConcurrently(fetches, width: parallelDownloads) { fetch in
            await stage(fetch)
        }) ?? []
    }

    /// One file: carries out ``ReleasePlan/Fetch/action(stagedIntact:heldFileSize:patchFailed:inMemoryLimit:)``,
    /// falling back to a download when a patch fails.
    func stage(_ fetch: ReleasePlan.Fetch) async -> SyncReport.File {
        let entry = fetch.entry
        var file = SyncReport.File(path: entry.path, outcome: .staged, bytesTransferred: 0, size: entry.size)
        let staged = stagingFolder.appendingPathComponent(entry.sha256)
        // Staged by a sync that stopped before its switch, maybe before its writes were durable:
        // checked again, and downloaded again unless intact.
        var stagedIntact = false
        if FileManager.default.fileExists(atPath: staged.path) {
            if let (sha256, size) = try? StagedContent.digest(of: staged), sha256 == entry.sha256, size == entry.size {
                stagedIntact = true
            } else {
                try? FileManager.default.removeItem(at: staged)
            }
        }
        var patchFailed = false
        do {
            let local = try localURL(entry.path)
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
                        file.bytesTransferred = try await fetchPatch(patch, for: entry, base: local, to: staged)
                        file.outcome = .delta
                        return file
                    } catch {
                        // Any failure of the patch path falls back to the full download.
                        file.bytesTransferred = (error as? DeltaFailure)?.bytesTransferred ?? 0
                        patchFailed = true
                    }
                case .download(let gzip):
                    let length = gzip ? entry.gzip?.size ?? entry.size : entry.size
                    let (outcome, transferred) = try await downloadInMemory(entry, gzip: gzip, length: length, to: staged)
                    file.outcome = outcome
                    file.bytesTransferred += transferred
                    return file
                case .stream(let gzip):
                    let (outcome, transferred) = try await stream(entry, gzip: gzip, to: staged)
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
    func stream(_ entry: ReleaseEntry, gzip useGzip: Bool, to staged: URL) async throws -> (SyncReport.Outcome, Int64) {
        let download =
            if useGzip, let gzip = entry.gzip, let url = entry.gzipURL {
                try blobDownload(url, sha256: gzip.sha256, size: gzip.size, partialName: "\(gzip.sha256).gz.partial")
            } else {
                try blobDownload(entry.blobURL, sha256: entry.sha256, size: entry.size, partialName: "\(entry.sha256).partial")
            }
        let (outcome, transferred) = try await run(download, for: entry.path)
        let verified = staged.appendingPathExtension("verifying")
        do {
            try StagedContent.verifyAndStage(download.partialFile, gzip: useGzip, entry: entry, to: verified)
        } catch {
            // A download that does not match the release is worthless: start afresh next time.
            try? FileManager.default.removeItem(at: download.partialFile)
            try? FileManager.default.removeItem(at: verified)
            throw error
        }
        try StagedContent.setModificationDate(of: verified, to: entry)
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
    func downloadInMemory(_ entry: ReleaseEntry, gzip: Bool, length: Int64, to staged: URL) async throws -> (SyncReport.Outcome, Int64) {
        var request = URLRequest(url: try OriginPolicy.url(gzip ? entry.gzipURL ?? entry.blobURL : entry.blobURL, below: server))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let http: HTTPURLResponse
        let data: Data
        do {
            (http, data) = try await BoundedFetch.run(request, session: session, maximumBytes: Int(length))
        } catch let error as SyncError where error.code == .corrupt {
            throw SyncError(.corrupt, "\(request.url?.path ?? "the download") is longer than the \(length) bytes the release says")
        }
        guard http.statusCode == 200 else { throw SyncError(.server, "\(request.url?.path ?? "") answered \(http.statusCode)") }
        progress?(DepotClient.Progress(path: entry.path, bytesReceived: Int64(data.count), bytesExpected: length))
        var content = Data()
        var pending: Data? = data
        func next() -> Data? {
            defer { pending = nil }
            return pending
        }
        try StagedContent.decodeChecked(gzip: gzip, entry: entry, chunks: next) { content.append($0) }
        let verified = staged.appendingPathExtension("verifying")
        try Durability.write(content, to: verified)
        try StagedContent.setModificationDate(of: verified, to: entry)
        try Durability.rename(verified, to: staged)
        return (gzip ? .gzip : .full, Int64(data.count))
    }

    /// Downloads `patch` (resumable like any blob), checks its SHA-256, applies it to the file
    /// held at `base`, checks the result and leaves it at `staged`. Returns the bytes received;
    /// throws ``DeltaFailure`` with them otherwise.
    func fetchPatch(_ patch: ReleaseEntry.Patch, for entry: ReleaseEntry, base: URL, to staged: URL) async throws -> Int64 {
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
            (_, transferred) = try await run(download, for: entry.path)
            let bytes = try Data(contentsOf: download.partialFile)
            guard Hex.string(SHA256.hash(data: bytes)) == patch.sha256 else {
                throw SyncError(.corrupt, "the patch for \(entry.path) does not match the release")
            }
            try DeltaPatch.apply(base: base, patch: download.partialFile, output: patched, maximumSize: Int(entry.size))
            try StagedContent.verifyAndStage(patched, gzip: false, entry: entry, to: verified)
            try StagedContent.setModificationDate(of: verified, to: entry)
            try Durability.rename(verified, to: staged)
            return transferred
        } catch {
            throw DeltaFailure(cause: error, bytesTransferred: transferred)
        }
    }

    /// A resumable download of the immutable URL `url`, whose bytes have this SHA-256 and size.
    func blobDownload(_ url: String, sha256: String, size: Int64, partialName: String) throws -> BlobDownload {
        BlobDownload(
            url: try OriginPolicy.url(url, below: server),
            entityTag: "\"\(sha256)\"",
            expectedLength: size,
            partialFile: partialFolder.appendingPathComponent(partialName)
        )
    }

    /// Runs `download`, reporting progress under `path`.
    func run(_ download: BlobDownload, for path: String) async throws -> (BlobDownload.Outcome, Int64) {
        let counter = ByteCounter()
        let expected = download.expectedLength
        return try await download.run(session: session) { count in
            progress?(DepotClient.Progress(path: path, bytesReceived: counter.add(count), bytesExpected: expected))
        }
    }

    /// Why the patch path of a file failed, and what it had received: the sync then downloads the
    /// file whole and counts both.
    struct DeltaFailure: Error {
        let cause: any Error
        let bytesTransferred: Int64
    }
}
