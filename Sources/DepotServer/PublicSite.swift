import DepotHTTP
import DepotStore
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import _NIOFileSystem

/// The public folder as served: the latest scan, turned into resources, swapped atomically when
/// a rescan finds a change. Requests read the table; they never touch the folder.
public final class PublicSite: Sendable {
    private struct State {
        var files: [String: PublicFile] = [:]
        var resources: [String: Resource] = [:]
        var smallFiles = SmallFiles(budget: 0)
    }

    let directory: PublicDirectory
    let store: BlobStore
    let cacheControl: CacheControlPolicy
    /// How many bytes of small files are held in memory.
    let memoryBudget: Int
    private let state = Mutex(State())

    public init(directory: PublicDirectory, store: BlobStore, cacheControl: CacheControlPolicy, memoryBudget: Int = 0) {
        self.directory = directory
        self.store = store
        self.cacheControl = cacheControl
        self.memoryBudget = memoryBudget
    }

    /// The files of the last scan.
    var files: [String: PublicFile] { state.withLock { $0.files } }

    /// The resource at `relativePath`, if the folder has that file.
    public func resource(at relativePath: String) -> Resource? {
        state.withLock { $0.resources[relativePath] }
    }

    /// Scans the folder and publishes the result; returns the number of files that changed.
    @discardableResult
    public func refresh(logger: Logger) async throws -> Int {
        let previous = state.withLock { $0.files }
        let (files, stored) = try await directory.scan(previous: previous, now: HTTPDate.now, logger: logger)
        defer { stored.forEach(store.release) }
        let changed = files.filter { previous[$0.key] != $0.value }.count + previous.keys.filter { files[$0] == nil }.count
        guard changed > 0 || previous.isEmpty else { return 0 }
        var resources: [String: Resource] = [:]
        let previousSmallFiles = state.withLock { $0.smallFiles }
        var smallFiles = SmallFiles(budget: memoryBudget)
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            let resource = Resource(
                blob: file.blob,
                in: store,
                contentType: MediaType.forPath(path),
                lastModified: file.lastModified,
                lastModifiedIsStrong: file.lastModifiedIsStrong,
                cacheControl: cacheControl.value(for: path)
            )
            resources[path] = await smallFiles.holding(resource, previous: previousSmallFiles, fileSystem: .shared)
        }
        state.withLock {
            $0.files = files
            $0.resources = resources
            $0.smallFiles = smallFiles
        }
        if changed > 0 { logger.info("Public folder scanned", metadata: ["files": "\(files.count)", "changed": "\(changed)"]) }
        return changed
    }
}

/// Rescans the public folder at an interval until graceful shutdown.
struct PublicSiteRescanService: Service {
    let site: PublicSite
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await runPeriodically(every: interval, logger: logger, failure: "Rescanning the public folder failed") {
            try await site.refresh(logger: logger)
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
