import DepotManifest
import DepotStore
import Foundation
import Logging
import NIOPosix
import _NIOFileSystem

/// Writes what the server publishes into an ``ExportFolder``: plain files at the paths Depot
/// serves, which nginx, an object store or a CDN serves with no Depot behind it
/// (docs/architecture.md, "Scaling out"). `depot export` runs it once; with
/// `export.directory` set, the server runs it after every change of a channel and every
/// re-signing (``PublishedContent/reloadChannels(now:)``), and its collection removes from the
/// folder what retention removed from the store (``sweep()``).
///
/// Incremental, and O(change): a release whose document is in the folder is skipped with one
/// look, and of a new release only the pages not in the folder are read. That holds because of
/// the order of the writes, which is also what keeps every state a reader can see consistent:
/// 1. each new page's files, gzip variants, block indexes, pack and patches;
/// 2. made durable, then the new pages;
/// 3. made durable, then the release document;
/// 4. made durable, then each channel document, replaced atomically.
/// An object in the folder therefore has everything below it there, durable; an interrupted
/// export leaves only objects no channel names yet, which the next one completes.
public final class StaticExport: Sendable {
    /// A channel as the export writes it.
    public struct Channel: Sendable {
        public let name: String
        /// The releases its document names (``DepotManifest/ChannelDocument/namedReleases``).
        public let releases: [String]
        /// Its signed document, as served at `/channels/{name}`.
        public let document: [UInt8]

        public init(name: String, releases: [String], document: [UInt8]) {
            self.name = name
            self.releases = releases
            self.document = document
        }
    }

    /// What one export did.
    public struct Outcome: Sendable, Equatable {
        /// Releases written.
        public var releases = 0
        /// Files written (placed or replaced).
        public var files = 0
        /// Files removed (``StaticExport/sweep()``).
        public var removed = 0
    }

    /// New pages read and written at a time: bounds the memory a first export of a large
    /// catalog needs.
    private static let pagesAtATime = 64

    let folder: ExportFolder
    let catalog: Catalog
    let store: BlobStore
    /// The roots of the chain, served at `roots/{version}.json`.
    let roots: [ChannelSigner.Root]
    let logger: Logger
    /// One export or sweep at a time.
    private let lock = AsyncLock()

    public init(directory: FilePath, catalog: Catalog, store: BlobStore, roots: [ChannelSigner.Root], logger: Logger) throws {
        self.folder = try ExportFolder(root: directory)
        self.catalog = catalog
        self.store = store
        self.roots = roots
        self.logger = logger
    }

    /// Writes the channels `current()` returns (read once the export's turn comes, so that
    /// overlapping calls never write an older document after a newer one), and every object
    /// their releases need that the folder lacks.
    public func export(_ current: @Sendable () -> [Channel]) async throws -> Outcome {
        try await lock.withLock {
            let before = folder.written
            let channels = current()
            var outcome = Outcome()
            try await onPool { [folder, roots] in
                for root in roots { try folder.place("roots/\(root.document.version).json", bytes: root.bytes) }
            }
            for id in Set(channels.flatMap(\.releases)).sorted() {
                outcome.releases += try await exportRelease(id, withParent: true)
            }
            try await onPool { [folder] in
                try folder.barrier()
                for channel in channels { try folder.replaceChannelDocument(named: channel.name, with: channel.document) }
            }
            outcome.files = folder.written - before
            return outcome
        }
    }

    /// ``export(_:)`` for the server, which keeps serving when the export fails: the failure is
    /// logged, and the next change or re-signing (within a minute) tries again.
    func follow(_ current: @Sendable () -> [Channel]) async {
        do {
            let outcome = try await export(current)
            if outcome.files > 0 {
                logger.debug("Exported", metadata: ["releases": "\(outcome.releases)", "files": "\(outcome.files)"])
            }
        } catch {
            logger.error("Exporting to \(folder.root) failed", metadata: ["error": "\(error)"])
        }
    }

    /// Removes from the folder what the catalog no longer stores (run after retention): release
    /// documents, then pages and packs, then patches, then files, so that what stays has
    /// everything below it. Returns how many files it removed.
    public func sweep() async throws -> Int {
        try await lock.withLock {
            let releases = try await catalog.storedReleases()
            let pages = try await catalog.storedPages()
            let patches = try await catalog.storedPatches()
            let blobs = try await catalog.referencedBlobs()
            return try await onPool { [folder] in
                var removed = 0
                func remove(_ folderName: String, unless keep: (String) -> Bool) {
                    for name in folder.list(folderName) where !keep(name) {
                        folder.remove("\(folderName)/\(name)")
                        removed += 1
                    }
                }
                remove("releases") { releases.contains($0) }
                remove("pages") { pages.contains($0) }
                remove("packs") { pages.contains($0) }
                for source in folder.list("deltas") { remove("deltas/\(source)") { patches.contains("\(source)/\($0)") } }
                remove("blobs") { blobs.contains(String($0.prefix(64))) }
                return removed
            }
        }
    }

    // MARK: - One release

    /// What goes into the folder for one object: bytes, or a stored file.
    private enum Object: Sendable {
        case bytes(String, [UInt8])
        case file(String, FilePath)
    }

    /// Writes the release `id` unless the folder has it, after its parent (when `withParent` and
    /// it is still stored); returns how many releases it wrote.
    private func exportRelease(_ id: String, withParent: Bool) async throws -> Int {
        guard !folder.contains("releases/\(id)") else { return 0 }
        guard let stored = try await catalog.releaseDocument(id: id) else { throw StoreError(.invalidInput, "The release \(id) is not stored") }
        let release = try JSONDecoder().decode(ReleaseDocument.self, from: Data(stored.bytes))
        var parent: Catalog.StoredDocument?
        if let parentID = release.parent { parent = try await catalog.releaseDocument(id: parentID) }
        var written = 0
        if withParent, let parentID = release.parent, parent != nil {
            do {
                written += try await exportRelease(parentID, withParent: false)
            } catch {
                guard try await catalog.releaseDocument(id: parentID) == nil else { throw error }
                // Retention removed the parent while it was being written: it was there only for
                // the patches from it, and what was placed of it is swept like any unnamed object.
                logger.debug("The parent release went during the export", metadata: ["release": "\(parentID)"])
                parent = nil
            }
        }
        let bases = release.pageBases(from: try parent.map { try JSONDecoder().decode(ReleaseDocument.self, from: Data($0.bytes)) })
        var seen: Set<String> = []
        let missing = release.pages.filter { seen.insert($0).inserted && !folder.contains("pages/\($0)") }

        var objects: [Object] = []
        if let parentID = release.parent, let patch = try await catalog.documentDelta(from: parentID, to: id) {
            objects.append(.bytes("deltas/\(parentID)/\(id)", patch.patch))
        }
        for start in stride(from: 0, to: missing.count, by: Self.pagesAtATime) {
            for sha256 in missing[start..<min(start + Self.pagesAtATime, missing.count)] {
                objects += try await leaves(ofPage: sha256, base: bases[sha256])
            }
            try await place(objects)
            objects = []
        }
        try await place(objects)
        try await onPool { [folder] in try folder.barrier() }
        for start in stride(from: 0, to: missing.count, by: Self.pagesAtATime) {
            var pages: [Object] = []
            for sha256 in missing[start..<min(start + Self.pagesAtATime, missing.count)] {
                guard let page = try await catalog.pageDocument(sha256: sha256) else {
                    throw StoreError(.invalidInput, "The page \(sha256) is not stored")
                }
                pages.append(.bytes("pages/\(sha256)", page.bytes))
            }
            try await place(pages)
        }
        try await onPool { [folder] in try folder.barrier() }
        try await place([.bytes("releases/\(id)", stored.bytes)])
        return written + 1
    }

    /// What a page's document names: each entry's file, gzip variant, block index and patches;
    /// the page's pack; the patch of the page from `base`.
    private func leaves(ofPage sha256: String, base: String?) async throws -> [Object] {
        guard let stored = try await catalog.pageDocument(sha256: sha256) else { throw StoreError(.invalidInput, "The page \(sha256) is not stored") }
        let page = try JSONDecoder().decode(ReleasePage.self, from: Data(stored.bytes))
        var objects: [Object] = []
        for entry in page.entries {
            objects.append(.file("blobs/\(entry.sha256)", store.path(forSHA256: entry.sha256)))
            if entry.gzip != nil { objects.append(.file("blobs/\(entry.sha256).gz", store.gzipPath(forSHA256: entry.sha256))) }
            if entry.blocks != nil, !folder.contains("blobs/\(entry.sha256).zblocks"), let index = try await catalog.blockIndex(of: entry.sha256) {
                objects.append(.file("blobs/\(entry.sha256).blocks", store.path(forSHA256: index.indexSHA256)))
                objects.append(.file("blobs/\(entry.sha256).zblocks", store.path(forSHA256: index.packedSHA256)))
            }
            for patch in entry.patches ?? [] {
                objects.append(.file("deltas/\(patch.from)/\(entry.sha256)", store.path(forSHA256: patch.sha256)))
            }
        }
        if !page.packMembers.isEmpty, !folder.contains("packs/\(sha256)") {
            guard let pack = try await PublishedContent.packBytes(of: page, store: store) else {
                throw StoreError(.invalidInput, "A file of the page \(sha256) is not stored")
            }
            objects.append(.bytes("packs/\(sha256)", pack))
        }
        if let base, let patch = try await catalog.documentDelta(from: base, to: sha256) {
            objects.append(.bytes("deltas/\(base)/\(sha256)", patch.patch))
        }
        return objects
    }

    private func place(_ objects: [Object]) async throws {
        guard !objects.isEmpty else { return }
        try await onPool { [folder] in
            for object in objects {
                switch object {
                case .bytes(let path, let bytes): try folder.place(path, bytes: bytes)
                case .file(let path, let source): try folder.place(path, from: source)
                }
            }
        }
    }

    /// Runs the folder's blocking calls on NIO's blocking pool.
    private func onPool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
