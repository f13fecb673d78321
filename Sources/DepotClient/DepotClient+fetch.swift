import Crypto
import DepotHTTP
import DepotManifest
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DepotClient {
    /// The manifest, or `nil` when the server answered 304; with the bytes received.
    func fetchManifest(etag: String?) async throws -> (manifest: (Manifest, String)?, bytes: Int64) {
        var request = URLRequest(url: server.appendingPathComponent("manifest.json"))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (http, data) = try await BoundedFetch.run(request, configuration: sessionConfiguration, maximumBytes: configuration.maximumManifestBytes)
        switch http.statusCode {
        case 304:
            return (nil, Int64(data.count))
        case 200:
            guard let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else {
                throw SyncError(.corrupt, "the manifest is not valid")
            }
            if let problem = manifest.problem { throw SyncError(.corrupt, "the manifest is not usable: \(problem)") }
            return ((manifest, http.value(forHTTPHeaderField: "ETag") ?? ""), Int64(data.count))
        default:
            throw SyncError(.server, "/manifest.json answered \(http.statusCode)")
        }
    }

    /// Downloads `entry` (the smaller variant), verifies it, and renames it over `local`.
    func fetch(
        _ entry: Manifest.Entry,
        to local: URL,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> (SyncReport.Outcome, Int64) {
        let useGzip = entry.gzip.map { $0.size < entry.size } ?? false
        let download =
            if useGzip, let gzip = entry.gzip {
                try blobDownload(gzip.url, sha256: gzip.sha256, size: gzip.size, partialName: "\(gzip.sha256).gz.partial")
            } else {
                try blobDownload(entry.blob, sha256: entry.sha256, size: entry.size, partialName: "\(entry.sha256).partial")
            }
        let (outcome, transferred) = try await run(download, for: entry.path, progress: progress)

        try FileManager.default.createDirectory(at: local.deletingLastPathComponent(), withIntermediateDirectories: true)
        let staged = stagingFolder.appendingPathComponent(UUID().uuidString)
        do {
            try verifyAndStage(download.partialFile, gzip: useGzip, entry: entry, to: staged)
        } catch {
            // A download that does not match the manifest is worthless: start afresh next time.
            try? FileManager.default.removeItem(at: download.partialFile)
            try? FileManager.default.removeItem(at: staged)
            throw error
        }
        try setModificationDate(of: staged, to: entry)
        try AtomicFile.replace(local, with: staged)
        try? FileManager.default.removeItem(at: download.partialFile)
        switch outcome {
        case .resumed: return (.resumed, transferred)
        case .full, .alreadyComplete: return (useGzip ? .gzip : .full, transferred)
        }
    }

    /// Downloads the patch `delta` (resumable like any blob), checks its SHA-256, applies it to
    /// the file held at `local`, checks the result against the manifest and replaces `local`
    /// atomically. Returns the bytes received; throws ``DeltaFailure`` with them otherwise, and
    /// `local` is untouched.
    func fetchDelta(
        _ delta: Manifest.Delta,
        for entry: Manifest.Entry,
        to local: URL,
        progress: (@Sendable (Progress) -> Void)?
    ) async throws -> Int64 {
        let download = try blobDownload(delta.url, sha256: delta.sha256, size: delta.size, partialName: "\(delta.sha256).delta.partial")
        var transferred: Int64 = 0
        let staged = stagingFolder.appendingPathComponent(UUID().uuidString)
        do {
            (_, transferred) = try await run(download, for: entry.path, progress: progress)
            let patch = try Data(contentsOf: download.partialFile)
            guard Hex.string(SHA256.hash(data: patch)) == delta.sha256 else {
                throw SyncError(.corrupt, "the patch for \(entry.path) does not match the manifest")
            }
            try DeltaPatch.apply(base: local, patch: download.partialFile, output: staged, maximumSize: Int(entry.size))
            try verifyAndStage(staged, gzip: false, entry: entry, to: staged.appendingPathExtension("verified"))
            try? FileManager.default.removeItem(at: staged)
            try setModificationDate(of: staged.appendingPathExtension("verified"), to: entry)
            try AtomicFile.replace(local, with: staged.appendingPathExtension("verified"))
            try? FileManager.default.removeItem(at: download.partialFile)
            return transferred
        } catch {
            try? FileManager.default.removeItem(at: download.partialFile)
            try? FileManager.default.removeItem(at: staged)
            try? FileManager.default.removeItem(at: staged.appendingPathExtension("verified"))
            throw DeltaFailure(cause: error, bytesTransferred: transferred)
        }
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
    func run(_ download: BlobDownload, for path: String, progress: (@Sendable (Progress) -> Void)?) async throws -> (BlobDownload.Outcome, Int64) {
        let counter = ByteCounter()
        let expected = download.expectedLength
        return try await download.run(configuration: sessionConfiguration) { count in
            progress?(Progress(path: path, bytesReceived: counter.add(count), bytesExpected: expected))
        }
    }

    /// Gives a staged file the manifest's `Last-Modified` as its modification time.
    func setModificationDate(of staged: URL, to entry: Manifest.Entry) throws {
        if let modified = HTTPDate(parsing: entry.lastModified, now: HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970))) {
            try? FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: TimeInterval(modified.secondsSince1970))],
                ofItemAtPath: staged.path
            )
        }
    }

    /// Decodes (for gzip) or copies the download into `staged`, checking size and SHA-256 against
    /// the manifest, and fsyncs it. Throws ``SyncError`` `.corrupt` on any mismatch.
    func verifyAndStage(_ partial: URL, gzip: Bool, entry: Manifest.Entry, to staged: URL) throws {
        guard FileManager.default.createFile(atPath: staged.path, contents: nil) else {
            throw SyncError(.io, "cannot write \(staged.path)")
        }
        let input = try FileHandle(forReadingFrom: partial)
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: staged)
        defer { try? output.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        let decoder = gzip ? try GzipDecoder() : nil
        let write: (Data) throws -> Void = { data in
            hasher.update(data: data)
            size += Int64(data.count)
            guard size <= entry.size else { throw SyncError(.corrupt, "\(entry.path) is larger than the manifest says") }
            try output.write(contentsOf: data)
        }
        while let chunk = try input.read(upToCount: 256 * 1024), !chunk.isEmpty {
            if let decoder { try decoder.decode(chunk, output: write) } else { try write(chunk) }
        }
        if let decoder, !decoder.isFinished { throw SyncError(.corrupt, "the gzip data of \(entry.path) is truncated") }
        let digest = Hex.string(hasher.finalize())
        guard size == entry.size, digest == entry.sha256 else {
            throw SyncError(.corrupt, "\(entry.path) does not match the manifest (SHA-256 \(digest), \(size) bytes)")
        }
        try output.synchronize()
    }

    /// A manifest URL (a path such as `/blobs/…`) resolved against the server; refuses one that
    /// leads to another origin.
    func blobURL(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: server)?.absoluteURL, OriginPolicy.isSameOrigin(url, as: server) else {
            throw SyncError(.corrupt, "the manifest has an invalid URL: \(path)")
        }
        return url
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
