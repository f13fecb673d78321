import DepotConnection
import DepotHTTP
import DepotStore
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import _NIOFileSystem

/// The public folder as served: the latest scan, turned into resources, swapped atomically when
/// a rescan finds a change. Requests read the table; they never touch the folder.
///
/// With a catalog, each scan's changes are recorded there with each file's identity (device,
/// inode, size, times): a start serves the record at once, and its first scan reads and hashes
/// only the files whose identity changed, whatever the folder holds.
public final class PublicSite: Sendable {
    private struct State {
        /// Whether `files` holds a scan or the record: else a refresh starts from the record.
        var published = false
        /// Whether the last scan failed while nothing was published: `/readyz` says so.
        var scanFailed = false
        var files: [String: PublicFile] = [:]
        var resources: [String: Resource] = [:]
        var smallFiles = SmallFiles(budget: 0)
    }

    let directory: PublicDirectory
    let store: BlobStore
    /// Where the scans are recorded; `nil`: every start reads the whole folder.
    let blobs: BlobIndex?
    let cacheControl: CacheControlPolicy
    /// How many bytes of small files are held in memory.
    let memoryBudget: Int
    /// Makes the brotli and zstd variants of large files, with a catalog to record them in.
    let variants: VariantMaker?
    private let state = Mutex(State())

    /// - Parameter variants: Makes the brotli and zstd variants of large files (the server's);
    ///   `nil`: none.
    init(
        directory: PublicDirectory,
        store: BlobStore,
        blobs: BlobIndex? = nil,
        cacheControl: CacheControlPolicy,
        memoryBudget: Int = 0,
        variants: VariantMaker?
    ) {
        self.directory = directory
        self.store = store
        self.blobs = blobs
        self.cacheControl = cacheControl
        self.memoryBudget = memoryBudget
        self.variants = variants
    }

    /// A site without brotli or zstd variants.
    public convenience init(
        directory: PublicDirectory,
        store: BlobStore,
        blobs: BlobIndex? = nil,
        cacheControl: CacheControlPolicy,
        memoryBudget: Int = 0
    ) {
        self.init(directory: directory, store: store, blobs: blobs, cacheControl: cacheControl, memoryBudget: memoryBudget, variants: nil)
    }

    /// The files of the last scan.
    var files: [String: PublicFile] { state.withLock { $0.files } }

    /// The resource at `relativePath`, if the folder has that file.
    public func resource(at relativePath: String) -> Resource? {
        state.withLock { $0.resources[relativePath] }
    }

    /// What a scan found.
    public struct Refresh: Sendable, Equatable {
        /// Files new, changed or gone since the files known before it (served, or at a start
        /// recorded).
        public let changed: Int
        /// Files read and stored (hashed, gzipped) by this scan.
        public let read: Int

        public init(changed: Int, read: Int) {
            self.changed = changed
            self.read = read
        }
    }

    /// Serves the public folder at a start, without reading it: when the catalog has a record of
    /// it, the recorded files are served at once, as between two rescans. A ``refresh(logger:)``
    /// must follow (the rescan service runs it first): it reads only the files whose identity
    /// changed. Without a record (a first start) nothing is served until that refresh, which is
    /// then the full scan: ``isScanned`` says which.
    public func start(logger: Logger) async throws {
        try await blobs?.forgetPublicFiles(except: directory.root.string)
        let recorded = try await recordedFiles()
        guard !recorded.isEmpty else {
            logger.info("Public folder not recorded: served once scanned")
            return
        }
        await publish(recorded)
        logger.info("Public folder served as recorded", metadata: ["files": "\(recorded.count)"])
    }

    /// Whether the folder is served: from the record of an earlier scan, or from a scan. Until
    /// then a public path is answered 503, not 404, and `/readyz` says the folder is being
    /// scanned.
    public var isScanned: Bool { state.withLock { $0.published } }

    /// The answer while the folder is not yet served: 503, and a retry in a few seconds. It says
    /// whether the scan is under way or failed (the cause is in the log: the route is public).
    var notYetServed: HTTPError {
        let failed = state.withLock { $0.scanFailed }
        let message = failed ? "The public folder cannot be scanned; the server's log says why" : "The public folder is being scanned"
        return HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: message)
    }

    /// Notes that a scan failed: while nothing is served, ``notYetServed`` says so.
    func scanFailed() {
        state.withLock { $0.scanFailed = !$0.published }
    }

    /// Scans the folder, reads what is new or changed, records it in the catalog, and publishes
    /// the result.
    @discardableResult
    public func refresh(logger: Logger) async throws -> Refresh {
        let (published, served) = state.withLock { ($0.published, $0.files) }
        let known = published ? served : try await recordedFiles()
        let (files, stored) = try await directory.scan(previous: known, now: HTTPDate.now, logger: logger)
        defer { stored.forEach(store.release) }
        let changed = files.values.filter { known[$0.relativePath] != $0 }
        let removed = known.keys.filter { files[$0] == nil }
        try await blobs?.recordPublicFiles(folder: directory.root.string, changed: changed, removed: removed)
        let outcome = Refresh(changed: changed.count + removed.count, read: stored.count)
        guard outcome.changed > 0 || !published else { return outcome }
        await publish(files)
        logger.info("Public folder scanned", metadata: ["files": "\(files.count)", "changed": "\(outcome.changed)", "read": "\(outcome.read)"])
        // Served at once with gzip; then with the brotli and zstd variants of the changed files
        // (all on the first scan, for those a restart left without), made in the background:
        // ``variantMade(of:)``.
        for file in published ? changed : Array(files.values) { variants?.request(file.blob) }
        return outcome
    }

    /// After a variant of the content `sha256` was made: serves the folder with it, unless no
    /// file has that content or a scan changed the folder meanwhile (that scan read it).
    func variantMade(of sha256: String) async {
        let files = state.withLock { $0.files }
        guard files.values.contains(where: { $0.blob.sha256 == sha256 }) else { return }
        await publish(files, unlessChanged: true)
    }

    /// Makes `files` the folder as served, with the stored variants of those large enough to
    /// have any.
    ///
    /// - Parameter unlessChanged: Leaves the served folder as it is when its files are no longer
    ///   `files`.
    private func publish(_ files: [String: PublicFile], unlessChanged: Bool = false) async {
        var resources: [String: Resource] = [:]
        let previousSmallFiles = state.withLock { $0.smallFiles }
        var smallFiles = SmallFiles(budget: memoryBudget)
        let large = files.values.filter { variants?.variants.makesVariants(ofSize: $0.blob.size) == true }.map(\.blob.sha256)
        let stored = (try? await blobs?.contentVariants(of: large)) ?? [:]
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            let resource = Resource(
                blob: file.blob,
                variants: stored[file.blob.sha256] ?? [],
                in: store,
                contentType: MediaType.forPath(path),
                lastModified: file.lastModified,
                lastModifiedIsStrong: file.lastModifiedIsStrong,
                cacheControl: cacheControl.value(for: path)
            )
            resources[path] = await smallFiles.holding(resource, previous: previousSmallFiles, fileSystem: .shared)
        }
        state.withLock {
            if unlessChanged, $0.files != files { return }
            $0.published = true
            $0.scanFailed = false
            $0.files = files
            $0.resources = resources
            $0.smallFiles = smallFiles
        }
    }

    /// The files the catalog recorded whose blob (and gzip variant) is still stored: at a start,
    /// what the folder held when the last scan ran.
    private func recordedFiles() async throws -> [String: PublicFile] {
        guard let blobs else { return [:] }
        var files: [String: PublicFile] = [:]
        for (path, file) in try await blobs.publicFiles(folder: directory.root.string) {
            guard try await store.isStored(file.blob.sha256) else { continue }
            if file.blob.gzip != nil, try await FileSystem.shared.info(forFileAt: store.gzipPath(forSHA256: file.blob.sha256)) == nil {
                continue
            }
            files[path] = file
        }
        return files
    }
}

/// Scans the public folder once after a start (``PublicSite/start(logger:)``), trying again
/// until that scan succeeds, then rescans it at an interval, if one is set, until graceful
/// shutdown.
struct PublicSiteRescanService: Service {
    let site: PublicSite
    let interval: Duration?
    /// The wait after a failed first scan; it doubles each time, up to a minute.
    let retry: Duration
    /// Awaited before the first scan: for tests that hold it back.
    var beforeFirstScan: (@Sendable () async -> Void)?
    let logger: Logger

    func run() async throws {
        await beforeFirstScan?()
        guard await scanUntilDone() else { return }
        guard let interval else {
            // A service that returns ends the whole group: the server would stop serving.
            try? await gracefulShutdown()
            return
        }
        await runPeriodically(every: interval, logger: logger, failure: "Rescanning the public folder failed") {
            try await site.refresh(logger: logger)
        }
    }

    /// The first scan, tried until it succeeds (a folder not yet mounted, a catalog locked):
    /// without it a first start would serve nothing for good. `false` when shutdown came first.
    private func scanUntilDone() async -> Bool {
        let (site, logger, retry) = (site, logger, retry)
        return await cancelWhenGracefulShutdown {
            var wait = retry
            while true {
                do {
                    try await site.refresh(logger: logger)
                    return true
                } catch {
                    if Task.isCancelled { return false }
                    site.scanFailed()
                    logger.error("Scanning the public folder failed; trying again", metadata: ["error": "\(error)", "retryIn": "\(wait)"])
                }
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    return false
                }
                wait = min(wait * 2, .seconds(60))
            }
        }
    }
}

extension MediaType {
    /// The `Content-Type` for a file name, by extension; `application/octet-stream` when unknown.
    /// Text types carry `charset=utf-8`.
    static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), let type = MediaType.getMediaType(forExtension: String(name[name.index(after: dot)...]).lowercased())
        else {
            return "application/octet-stream"
        }
        let isText = type.type == .text || (type.type == .application && ["json", "javascript", "xml"].contains(type.subType))
        return isText && type.parameter == nil ? "\(type); charset=utf-8" : "\(type)"
    }
}

extension PublicSite {
    /// The SHA-256 of every blob the public folder is served from.
    var blobHashes: Set<String> {
        Set(files.values.map(\.blob.sha256))
    }
}
