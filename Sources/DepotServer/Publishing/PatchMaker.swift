import DepotConnection
import DepotDelta
import DepotHTTP
import DepotStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import _NIOFileSystem

/// Makes the patches a release lists, before the release is committed: for each new content,
/// from each of the previous versions of its path (``DeltaConfiguration/previousVersions``).
///
/// Each patch is encoded on a thread of its own (NIO's blocking pool carries every file read
/// and write of the server, which must not wait behind a patch), stored as a blob and recorded.
/// A patch that is not clearly smaller than the full download is recorded as not worth keeping,
/// so it is not tried again. A crash on the way leaves at most an unreferenced blob, which
/// collection removes.
///
/// A service only to stop its thread at shutdown.
final class PatchMaker: Service {
    let catalog: Catalog
    let store: BlobStore
    let configuration: DeltaConfiguration
    let logger: Logger
    private let encoder = NIOThreadPool(numberOfThreads: 1)
    /// Patches of documents, made after each release: never behind a large file's patch.
    private let documentEncoder = NIOThreadPool(numberOfThreads: 1)

    init(catalog: Catalog, store: BlobStore, configuration: DeltaConfiguration, logger: Logger) {
        self.catalog = catalog
        self.store = store
        self.configuration = configuration
        self.logger = logger
        encoder.start()
        documentEncoder.start()
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await encoder.shutdownGracefully()
        try await documentEncoder.shutdownGracefully()
    }

    /// How both kinds of patch are encoded, from the configuration.
    private var deltaOptions: DeltaMaker.Options {
        DeltaMaker.Options(indexStep: configuration.indexStep, packsSections: configuration.packSections)
    }

    /// Makes the patches of documents a client of `channel` asks for after its last move: the
    /// release document from its parent's, and each changed page from the parent's page at its
    /// place (``Catalog/missingDocumentPatches(channel:)``). A few hundred bytes each, made once;
    /// no request makes any other. Failures are logged: without a patch, clients fetch the whole
    /// document.
    func makeDocumentPatches(channel: String) async {
        guard configuration.previousVersions > 0 else { return }
        do {
            let options = deltaOptions
            for pair in try await catalog.missingDocumentPatches(channel: channel) {
                let (patch, fullSize) = try await documentEncoder.runIfActive {
                    let patch = try DeltaMaker.make(from: pair.sourceBytes, to: pair.targetBytes, options: options)
                    return (Array(patch.readableBytesView), try pair.targetBytes.withUnsafeBytes { try Gzip.compress($0).count })
                }
                try await catalog.recordDocumentDelta(source: pair.source, target: pair.target, patch: patch, fullSize: fullSize, now: .now())
            }
        } catch {
            logger.error("Making patches of release documents failed", metadata: ["channel": "\(channel)", "error": "\(error)"])
        }
    }

    /// Makes the missing patches to `target`, the new content of `path`. Failures are logged:
    /// a release without a patch is still correct, clients download the file instead.
    func makePatches(path: String, target: BlobRecord) async {
        guard configuration.previousVersions > 0 else { return }
        do {
            let sources = try await catalog.patchSources(path: path, target: target.sha256, previousVersions: configuration.previousVersions)
            let limit = Int(Double(target.gzip?.size ?? target.size) * configuration.maximumRatio)
            // An earlier version too large to index gets no patch: skipped each time (a look at
            // its recorded size), so raising the limit later makes the patch.
            for source in sources where source.size <= configuration.maximumSourceBytes {
                try await makePatch(path: path, from: source, to: target, limit: limit)
            }
        } catch {
            logger.error("Making patches failed", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    private func makePatch(path: String, from source: FileVersion, to target: BlobRecord, limit: Int) async throws {
        let started = ContinuousClock.now
        let sourcePath = store.path(forSHA256: source.sha256).string
        let targetPath = store.path(forSHA256: target.sha256).string
        let options = deltaOptions
        let patch = try await encoder.runIfActive {
            try DeltaMaker.make(from: sourcePath, to: targetPath, limit: limit, options: options)
        }
        var metadata: Logger.Metadata = [
            "path": "\(path)", "from": "\(source.version)", "duration": "\(ContinuousClock.now - started)",
        ]
        guard let patch else {
            try await catalog.recordDelta(from: source.sha256, to: target.sha256, blob: nil, now: .now())
            logger.info("No patch kept: not clearly smaller than the full download", metadata: metadata)
            return
        }
        let blob = try await store.ingest(
            AsyncStream {
                $0.yield(patch)
                $0.finish()
            }
        )
        defer { store.release(blob.sha256) }
        try await catalog.recordDelta(from: source.sha256, to: target.sha256, blob: blob, now: .now())
        metadata["size"] = "\(blob.size)"
        logger.info("Patch made", metadata: metadata)
    }
}
