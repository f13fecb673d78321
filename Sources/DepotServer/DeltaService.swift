import DepotHTTP
import DepotStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import _NIOFileSystem

/// The paths whose new versions want patches. Publishing adds to it and never waits.
public final class DeltaQueue: Sendable {
    let paths: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    public init() {
        (paths, continuation) = AsyncStream.makeStream(of: String.self)
    }

    /// Asks for patches to the live version of `path`.
    public func schedule(_ path: String) {
        continuation.yield(path)
    }
}

/// Makes patches in the background: for each scheduled path, from each of the previous versions
/// (``DeltaConfiguration/previousVersions``) to the live one. At start it goes over every path
/// once, so patches a stop or a crash left unmade are made.
///
/// Each patch is encoded on a thread of the service's own, stored as a blob and recorded with a new
/// manifest in one transaction; a crash on the way leaves at most an unreferenced blob, which
/// collection removes. A patch that is not clearly smaller than the full download is recorded
/// as not worth keeping, so it is not tried again.
struct DeltaService: Service {
    let catalog: Catalog
    let store: BlobStore
    let content: PublishedContent
    let queue: DeltaQueue
    let configuration: DeltaConfiguration
    let logger: Logger

    func run() async throws {
        // Encoding a patch of a large file is seconds of CPU. It gets a thread of its own: NIO's
        // blocking pool (one thread per core) carries every file read and write of the server,
        // which must not wait behind a patch.
        let encoder = NIOThreadPool(numberOfThreads: 1)
        encoder.start()
        do {
            try await makeDeltas(on: encoder)
        } catch {
            try? await encoder.shutdownGracefully()
            throw error
        }
        try await encoder.shutdownGracefully()
    }

    private func makeDeltas(on encoder: NIOThreadPool) async throws {
        for path in try await catalog.livePaths() {
            await makeDeltas(for: path, on: encoder)
        }
        for await path in queue.paths.cancelOnGracefulShutdown() {
            await makeDeltas(for: path, on: encoder)
        }
    }

    private func makeDeltas(for path: String, on encoder: NIOThreadPool) async {
        do {
            guard let work = try await catalog.deltaWork(path: path, previousVersions: configuration.previousVersions) else { return }
            let target = work.target
            let limit = Int(Double(target.gzipSize ?? target.size) * configuration.maximumRatio)
            // An earlier version too large to index gets no patch: skipped each time (a look at
            // its recorded size), so raising the limit later makes the patch.
            for source in work.sources where source.size <= configuration.maximumSourceBytes {
                try Task.checkCancellation()
                try await makeDelta(from: source, to: target, limit: limit, on: encoder)
            }
        } catch is CancellationError {
        } catch {
            logger.error("Making patches failed", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    private func makeDelta(from source: FileVersion, to target: FileVersion, limit: Int, on encoder: NIOThreadPool) async throws {
        let started = ContinuousClock.now
        let sourcePath = store.path(forSHA256: source.sha256).string
        let targetPath = store.path(forSHA256: target.sha256).string
        let options = DeltaMaker.Options(indexStep: configuration.indexStep)
        let patch = try await encoder.runIfActive {
            try DeltaMaker.make(from: sourcePath, to: targetPath, limit: limit, options: options)
        }
        var metadata: Logger.Metadata = [
            "path": "\(target.path)", "from": "\(source.version)", "to": "\(target.version)",
            "duration": "\(ContinuousClock.now - started)",
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
        try await content.reload()
        metadata["size"] = "\(blob.size)"
        logger.info("Patch made", metadata: metadata)
    }
}
