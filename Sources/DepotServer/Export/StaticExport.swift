import DepotExport
import DepotManifest
import DepotStore
import Foundation
import Logging
import _NIOFileSystem

/// Writes what the server publishes into an ``ExportFolder``: plain files at the paths Depot
/// serves, which nginx, an object store or a CDN serves with no Depot behind it
/// (docs/architecture.md, "Scaling out"). `depot export` runs it once; with
/// `export.directory` set, the server runs it for every new set of channel documents, a change
/// of a channel or a re-signing (``ExportFollower``), and its collection removes from the
/// folder what retention removed from the store (``sweep()``).
///
/// Incremental, and O(change): a release whose document is in the folder is skipped with one
/// look, and of a new release only the pages not in the folder are read. That holds because of
/// the order of the writes (``DepotExport/ExportFolder/write(release:withParent:from:)``, the
/// one `depot mirror` follows too), then each channel document, replaced atomically.
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
            try await folder.blocking { [roots] folder in
                for root in roots { try folder.place(try .root(root.document.version), bytes: root.bytes) }
            }
            let source = StoreExportSource(releases: ReleaseStore(catalog), blobs: BlobIndex(catalog), store: store)
            for id in Set(channels.flatMap(\.releases)).sorted() {
                outcome.releases += try await folder.write(release: id, withParent: true, from: source)
            }
            try await folder.blocking { folder in
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
            let maintenance = Maintenance(catalog)
            let releases = try await maintenance.storedReleases()
            let pages = try await maintenance.storedPages()
            let patches = try await maintenance.storedPatches()
            let blobs = try await maintenance.referencedBlobs()
            return try await folder.blocking { folder in
                try folder.sweep { object in
                    let address = object.address ?? ""
                    return switch object.kind {
                    case .release: releases.contains(address)
                    case .page, .pack, .brotliPack: pages.contains(address)
                    case .delta: patches.contains("\(object.base ?? "")/\(address)")
                    case .blob, .gzip, .brotli, .zstd, .blockIndex, .blockPack: blobs.contains(address)
                    default: true
                    }
                }
            }
        }
    }
}
