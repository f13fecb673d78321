import Crypto
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a local folder in step with what a Depot server publishes.
///
/// A sync polls `/manifest.json` with `If-None-Match`; a 304 ends it after that one request.
/// Otherwise every file whose SHA-256 differs from the local copy is fetched from its immutable
/// blob URL, the smaller of the gzip and identity variants, into `.depot/partial/`. Interrupted
/// downloads resume with `Range` and `If-Range`. The result is checked against the manifest's
/// size and SHA-256 before anything is replaced, then renamed into place and given the file's
/// `Last-Modified` as its modification time. Files that left the manifest are removed.
///
/// Cancelling a sync leaves every local file either old or new, and the next sync resumes.
///
/// HTTP caching: the client sets `reloadIgnoringLocalAndRemoteCacheData` and gives its sessions
/// no URL cache. URLSession's protocol cache would otherwise answer a manifest request from its
/// own store when a response lacks freshness headers (heuristic freshness, RFC 9111 §4.2.2), and
/// a poll would see a stale manifest. Depot validates everything itself with ETags, so a local
/// HTTP cache adds nothing but staleness.
public struct DepotClient: Sendable {
    /// How a client behaves.
    public struct Configuration: Sendable {
        /// Remove local files that are no longer in the manifest.
        public var removesDeletedFiles: Bool
        /// Seconds without data after which a request fails.
        public var requestTimeout: TimeInterval
        /// The largest manifest accepted, in bytes (64 MiB by default: about 300,000 files).
        /// A larger one fails the sync instead of filling memory.
        public var maximumManifestBytes: Int

        public init(removesDeletedFiles: Bool = true, requestTimeout: TimeInterval = 60, maximumManifestBytes: Int = 64 << 20) {
            self.removesDeletedFiles = removesDeletedFiles
            self.requestTimeout = requestTimeout
            self.maximumManifestBytes = maximumManifestBytes
        }
    }

    /// Progress of one file's download.
    public struct Progress: Sendable {
        public let path: String
        public let bytesReceived: Int64
        public let bytesExpected: Int64
    }

    public let server: URL
    public let directory: URL
    public let configuration: Configuration

    public init(server: URL, directory: URL, configuration: Configuration = Configuration()) {
        self.server = server
        self.directory = directory
        self.configuration = configuration
    }

    var stateFile: URL { directory.appendingPathComponent(".depot/state.json") }
    var partialFolder: URL { directory.appendingPathComponent(".depot/partial") }
    /// Where verified files wait for their rename; emptied when a sync starts, so a client killed
    /// mid-replace leaves nothing behind for long.
    var stagingFolder: URL { directory.appendingPathComponent(".depot/staging") }

    var sessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = self.configuration.requestTimeout
        return configuration
    }

    /// Brings the folder in step with the server's manifest.
    ///
    /// - Parameter progress: Called as download bytes arrive, from any thread.
    /// - Returns: What happened to each file. A file that failed keeps its previous local copy
    ///   and is listed as `failed`; the sync then does not remember the manifest, so the next
    ///   one retries.
    /// - Throws: ``SyncError`` when the manifest cannot be fetched or the folder is unusable.
    public func sync(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> SyncReport {
        try FileManager.default.createDirectory(at: partialFolder, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: stagingFolder)
        try FileManager.default.createDirectory(at: stagingFolder, withIntermediateDirectories: true)
        var state = SyncState.load(from: stateFile)
        let poll = try await fetchManifest(etag: state.manifestETag)
        guard let (manifest, manifestETag) = poll.manifest else {
            return SyncReport(
                manifestNotModified: true,
                manifestBytes: poll.bytes,
                files: state.files.keys.sorted().map {
                    SyncReport.File(path: $0, outcome: .unchanged, bytesTransferred: 0, size: state.files[$0]!.size)
                }
            )
        }
        var report = SyncReport(manifestNotModified: false, manifestBytes: poll.bytes, files: [])
        // Two paths that would be one file here (letter case, Unicode form, a file and a folder):
        // the first is kept, the others fail instead of overwriting it.
        let collisions = Dictionary(PortablePath.collisions(in: manifest.files.map(\.path)).map { ($0.path, $0.with) }) { first, _ in first }
        for entry in manifest.files {
            try Task.checkCancellation()
            if let other = collisions[entry.path] {
                report.files.append(
                    .init(
                        path: entry.path,
                        outcome: .failed,
                        bytesTransferred: 0,
                        size: entry.size,
                        error: "it collides with \(other) on this file system"
                    )
                )
                continue
            }
            let file = await syncFile(entry, state: &state, progress: progress)
            report.files.append(file)
        }
        if configuration.removesDeletedFiles {
            let live = Set(manifest.files.map(\.path))
            for path in state.files.keys.sorted() where !live.contains(path) {
                let size = state.files[path]?.size ?? 0
                if let local = try? localURL(for: path) { try? FileManager.default.removeItem(at: local) }
                state.files[path] = nil
                report.files.append(.init(path: path, outcome: .removed, bytesTransferred: 0, size: size))
            }
        }
        state.manifestETag = report.failedCount == 0 ? manifestETag : nil
        try state.save(to: stateFile)
        removeStalePartials(keeping: manifest)
        return report
    }

    /// One file: unchanged, or fetched, verified and replaced.
    func syncFile(_ entry: Manifest.Entry, state: inout SyncState, progress: (@Sendable (Progress) -> Void)?) async -> SyncReport.File {
        var file = SyncReport.File(path: entry.path, outcome: .unchanged, bytesTransferred: 0, size: entry.size)
        do {
            let local = try localURL(for: entry.path)
            if let known = state.files[entry.path], known.sha256 == entry.sha256,
                (try? FileManager.default.attributesOfItem(atPath: local.path)[.size] as? Int64) == entry.size
            {
                return file
            }
            var patchBytes: Int64 = 0
            if let held = state.files[entry.path], let delta = entry.deltas?.first(where: { $0.from == held.sha256 }),
                FileManager.default.fileExists(atPath: local.path)
            {
                do {
                    file.bytesTransferred = try await fetchDelta(delta, for: entry, to: local, progress: progress)
                    file.outcome = .delta
                } catch {
                    // Any failure of the patch path falls back to the full download.
                    patchBytes = (error as? DeltaFailure)?.bytesTransferred ?? 0
                }
            }
            if file.outcome != .delta {
                let (outcome, transferred) = try await fetch(entry, to: local, progress: progress)
                file.outcome = outcome
                file.bytesTransferred = transferred + patchBytes
            }
            state.files[entry.path] = .init(version: entry.version, sha256: entry.sha256, etag: entry.etag, size: entry.size)
            try state.save(to: stateFile)
        } catch {
            file.outcome = .failed
            file.error = "\(error)"
        }
        return file
    }

    /// The local file for a manifest path; refuses paths that would leave the folder.
    func localURL(for path: String) throws -> URL {
        let decoded: RequestPath
        do {
            decoded = try RequestPath(decoding: "/" + RequestPath.encode(path))
        } catch {
            throw SyncError(.corrupt, "the manifest names an unsafe path: \(path)")
        }
        guard !decoded.segments.isEmpty, PortablePath.problem(path) == nil else {
            throw SyncError(.corrupt, "the manifest names an unsafe path: \(path)")
        }
        return decoded.segments.reduce(directory) { $0.appendingPathComponent($1) }
    }

    /// Deletes partial downloads of content the manifest no longer lists.
    func removeStalePartials(keeping manifest: Manifest) {
        let wanted = Set(manifest.files.flatMap { [$0.sha256, $0.gzip?.sha256].compactMap { $0 } })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partialFolder.path)) ?? []
        for name in names where !wanted.contains(String(name.prefix(64))) {
            try? FileManager.default.removeItem(at: partialFolder.appendingPathComponent(name))
        }
    }
}
