import DepotConnection
import DepotDelta
import DepotHTTP
import DepotStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import _NIOFileSystem

/// Makes what lets a client fetch less than a whole file: before a release is committed, for
/// each new content, its block index and the patches from earlier versions of its path at
/// ``DeltaConfiguration/distances``; after it, the patches between the channel's documents;
/// and, when a client first asks, the patch from any other version of a path (a later one too,
/// for the installs a rollback moves back).
///
/// Each patch and index is made on a thread of its own (NIO's blocking pool carries every file
/// read and write of the server, which must not wait behind a patch), stored as a blob and
/// recorded. A patch that is not clearly smaller than the full download is recorded as not
/// worth keeping, so it is not tried again. A crash on the way leaves at most an unreferenced
/// blob, which collection removes.
///
/// A service: its `run` makes the patches clients ask for, each pair once, one at a time
/// (``requestPatch(from:to:)``, through a ``ComputeOnce``), and stops the threads at shutdown.
/// Requested patches share their thread with the file patches and block indexes of publishes,
/// so that one encoder at a time holds a large version in memory; one requested pair is
/// encoded at a time, so each of a publish's patches waits at most for one requested encoding.
final class PatchMaker: Service {
    /// Where the patches and block indexes are recorded.
    let blobs: BlobIndex
    let store: BlobStore
    let configuration: DeltaConfiguration
    /// Makes the brotli and zstd variants a release lists: a service of its own.
    let variants: VariantMaker
    let metrics: DepotMetrics
    let logger: Logger
    /// Patches of documents, made after each release: never behind a large file's patch.
    private let documentEncoder = NIOThreadPool(numberOfThreads: 1)

    /// A patch a client asked for.
    struct Pair: Hashable, Sendable {
        let from: String
        let to: String
    }

    /// The patches clients asked for: one encoded at a time, at most
    /// ``DeltaConfiguration/maximumPendingRequests`` pairs admitted, the one encoding included.
    let requests: ComputeOnce<Pair, Void>

    /// The thread of every file patch and block index: the requested patches' own.
    var encoder: NIOThreadPool { requests.threads }

    init(
        blobs: BlobIndex,
        store: BlobStore,
        configuration: DeltaConfiguration,
        variants: VariantMaker,
        metrics: DepotMetrics,
        logger: Logger
    ) {
        self.blobs = blobs
        self.store = store
        self.configuration = configuration
        self.variants = variants
        self.metrics = metrics
        self.logger = logger
        requests = ComputeOnce(limits: ComputeLimits(maximumConcurrent: 1, maximumQueued: max(configuration.maximumPendingRequests - 1, 0)))
        documentEncoder.start()
    }

    func run() async throws {
        try await requests.run()
        try await documentEncoder.shutdownGracefully()
    }

    /// How both kinds of patch are encoded, from the configuration.
    private var deltaOptions: DeltaMaker.Options {
        DeltaMaker.Options(indexStep: configuration.indexStep, packsSections: configuration.packSections)
    }

    /// Whether any patch is made.
    private var makesPatches: Bool { !configuration.distances.isEmpty }

    /// Whether a patch between contents of these sizes is made, in advance or on request: not
    /// from an earlier version too large to index (skipped each time, a look at its recorded
    /// size, so raising the limit later makes the patch), nor to or from a content under
    /// ``DeltaConfiguration/patchMinimumBytes``.
    private func isWorthPatching(from sourceSize: Int64, to targetSize: Int64) -> Bool {
        sourceSize <= configuration.maximumSourceBytes && min(sourceSize, targetSize) >= configuration.patchMinimumBytes
    }

    /// Makes the patches of documents a client of `channel` asks for after its last move: the
    /// release document from its parent's, and each changed page from the parent's page at its
    /// place (``BlobIndex/missingDocumentPatches(channel:)``). A few hundred bytes each, made once;
    /// no request makes any other. Failures are logged: without a patch, clients fetch the whole
    /// document.
    func makeDocumentPatches(channel: String) async {
        guard makesPatches else { return }
        do {
            let options = deltaOptions
            let pairs = try await blobs.missingDocumentPatches(channel: channel)
            // Encoded in one trip to the encoder's thread, recorded in one transaction.
            let made = try await documentEncoder.runIfActive {
                try pairs.map { pair in
                    let patch = try DeltaMaker.make(from: pair.sourceBytes, to: pair.targetBytes, options: options)
                    return BlobIndex.DocumentDeltaRecord(
                        source: pair.source,
                        target: pair.target,
                        patch: Array(patch.readableBytesView),
                        fullSize: try pair.targetBytes.withUnsafeBytes { try Gzip.compress($0).count }
                    )
                }
            }
            try await blobs.recordDocumentDeltas(made, now: .now())
        } catch {
            logger.error("Making patches of release documents failed", metadata: ["channel": "\(channel)", "error": "\(error)"])
        }
    }

    /// Makes what a release lists for `target`, the new content of `path`: its brotli and zstd
    /// variants (or requests them, ``VariantMaker/prepare(_:)``), its block index and the
    /// missing patches from the earlier versions at ``DeltaConfiguration/distances``.
    /// Failures are logged: a release without them is still correct, clients download the file
    /// another way.
    func prepare(path: String, target: BlobRecord) async {
        await variants.prepare(target)
        // Most files of a large tree are small: no catalog read at all for them.
        guard configuration.indexesBlocks(ofSize: target.size) || (makesPatches && target.size >= configuration.patchMinimumBytes) else { return }
        do {
            try await makeBlockIndex(of: target)
            guard makesPatches else { return }
            let sources = try await blobs.patchSources(path: path, target: target.sha256, distances: configuration.distances)
            for source in sources where isWorthPatching(from: source.size, to: target.size) {
                let patch = try await encoder.runIfActive { [self] in try encodePatch(from: source, to: target) }
                try await keepPatch(patch, path: path, from: source, to: target, onRequest: false)
            }
        } catch {
            logger.error("Making patches failed", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// The pairs waiting for a patch a client asked for, the one being made included.
    var pendingPairs: Int { requests.pending }

    /// What became of a patch a client asked for.
    enum RequestOutcome {
        /// Made, or found not worth keeping, or impossible: look it up again.
        case done
        /// Too many pairs are waiting; the request may be repeated later.
        case busy
        /// Not a pair a patch is made for on request.
        case refused
    }

    /// Makes, unless it was made or tried before, the patch from the content `from` to the
    /// content `to`, two versions of one path (``BlobIndex/onRequestPatchSource(from:to:)``),
    /// and returns once it is recorded. Requests for one pair share one encoding; at most
    /// ``DeltaConfiguration/maximumPendingRequests`` pairs wait, one is encoded at a time.
    func requestPatch(from: String, to: String) async throws -> RequestOutcome {
        guard configuration.onRequest, makesPatches else { return .refused }
        guard let source = try await blobs.onRequestPatchSource(from: from, to: to), let target = try await blobs.blobRecord(sha256: to),
            isWorthPatching(from: source.size, to: target.size)
        else {
            return .refused
        }
        let pair = Pair(from: from, to: to)
        do {
            let answer = try await requests.value(
                for: pair,
                kept: { [blobs] in try await blobs.onRequestPatchSource(from: from, to: to) == nil ? () : nil },
                compute: { [self] in try encodePatch(from: source, to: target) },
                keep: { [self] patch in try await keepPatch(patch, path: source.path, from: source, to: target, onRequest: true) }
            )
            if case .busy = answer { return .busy }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Without the patch, the client downloads the file another way.
            logger.error("Making a requested patch failed", metadata: ["from": "\(from)", "to": "\(to)", "error": "\(error)"])
        }
        return .done
    }

    /// A patch encoded, on the encoder's thread: `nil` when it is not clearly smaller than the
    /// full download.
    private struct EncodedPatch: Sendable {
        let patch: ByteBuffer?
        let duration: Duration
    }

    /// Encodes the patch from `source` to `target`; blocking, for the encoder's thread.
    private func encodePatch(from source: FileVersion, to target: BlobRecord) throws -> EncodedPatch {
        let started = ContinuousClock.now
        let limit = Int(Double(target.gzip?.size ?? target.size) * configuration.maximumRatio)
        let patch = try DeltaMaker.make(
            from: store.path(forSHA256: source.sha256).string,
            to: store.path(forSHA256: target.sha256).string,
            limit: limit,
            options: deltaOptions
        )
        return EncodedPatch(patch: patch, duration: ContinuousClock.now - started)
    }

    /// Stores an encoded patch as a blob and records it, or records that none is worth keeping.
    private func keepPatch(_ encoded: EncodedPatch, path: String, from source: FileVersion, to target: BlobRecord, onRequest: Bool) async throws {
        metrics.recordPatchEncoded(onRequest: onRequest)
        var metadata: Logger.Metadata = ["path": "\(path)", "from": "\(source.version)", "duration": "\(encoded.duration)"]
        guard let patch = encoded.patch else {
            try await blobs.recordDelta(from: source.sha256, to: target.sha256, blob: nil, now: .now())
            logger.info("No patch kept: not clearly smaller than the full download", metadata: metadata)
            return
        }
        let blob = try await store.ingest(
            AsyncStream {
                $0.yield(patch)
                $0.finish()
            },
            compresses: false
        )
        defer { store.release(blob.sha256) }
        try await blobs.recordDelta(from: source.sha256, to: target.sha256, blob: blob, now: .now())
        metadata["size"] = "\(blob.size)"
        logger.info("Patch made", metadata: metadata)
    }
}
