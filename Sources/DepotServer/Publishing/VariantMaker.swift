import DepotCodecs
import DepotConnection
import DepotHTTP
import DepotStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import SystemPackage
import _NIOFileSystem

/// Makes the brotli and zstd variants of large content (``VariantConfiguration``), once, from
/// the stored file, so that every client that decodes one downloads fewer bytes than gzip's:
/// for a publish (``PatchMaker``) and for the public folder (``PublicSite``).
///
/// A service: contents are requested (``request(_:)``, or ``make(of:)`` to wait for them) into a
/// queue of at most ``VariantConfiguration/maximumPending`` (their names, never their bytes:
/// past it a request is refused, logged and counted), and its `run` makes them one content and one encoding at
/// a time, on a thread of its own at the lowest CPU priority (the threads that answer clients
/// go first), streaming the stored file through the encoder in chunks: memory stays at one
/// chunk (``buffered``) and one encoder's window and tables, whatever the file's size and however
/// many wait. A content is sampled first
/// (``VariantConfiguration/worthTrying(gzipSize:samples:)``): an incompressible one costs no
/// encoding. At start and after its queue overflowed it takes up the contents a channel lists
/// that lack variants, so a restart or a burst loses none. A crash on the way leaves at most an
/// unreferenced blob, which collection removes.
final class VariantMaker: Service {
    /// Where the variants are recorded.
    let blobs: BlobIndex
    let store: BlobStore
    let variants: VariantConfiguration
    let logger: Logger
    /// The most contents waiting; more are refused until the queue drains, then found again
    /// in the catalog.
    var maximumPending: Int { variants.maximumPending }
    /// The bytes of stored files held in memory (samples, then one chunk at a time).
    let buffered: BufferedBytes
    private let metrics: VariantMetrics?
    /// Called on the encoding thread after each chunk read: for tests that hold an encoding
    /// mid-file (``ServerConfiguration/variantChunkRead``).
    private let chunkRead: (@Sendable () -> Void)?

    /// What was requested, by content, each with the callers waiting for it.
    private struct Queue {
        var waiting: [String: [CheckedContinuation<Bool, Never>]] = [:]
        var overflowed = false
        var closed = false
    }

    private let queue = Mutex(Queue())
    private let counts = Mutex(Counts())
    private let observers = Mutex<[@Sendable (String) async -> Void]>([])
    private let requests: AsyncStream<BlobRecord>
    private let requestInput: AsyncStream<BlobRecord>.Continuation

    init(
        blobs: BlobIndex,
        store: BlobStore,
        variants: VariantConfiguration,
        metrics: VariantMetrics? = nil,
        chunkRead: (@Sendable () -> Void)? = nil,
        logger: Logger
    ) {
        self.blobs = blobs
        self.store = store
        self.variants = variants
        self.metrics = metrics
        self.chunkRead = chunkRead
        buffered = BufferedBytes(gauge: metrics?.buffered)
        self.logger = logger
        (requests, requestInput) = AsyncStream.makeStream(of: BlobRecord.self)
    }

    /// The work done so far.
    var done: Counts { counts.withLock { $0 } }

    /// The contents waiting, the one being made included.
    var pending: Int { queue.withLock { $0.waiting.count } }

    /// Calls `observer` with a content's SHA-256 once a variant of it was kept: the caches
    /// that negotiate `/files/` read it again.
    func onMade(_ observer: @escaping @Sendable (String) async -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Queues `content` for its variants, unless it is too small or too large for any, queued
    /// already, or the queue is full (then the catalog is searched again once it drained).
    /// Returns whether it was queued.
    @discardableResult
    func request(_ content: BlobRecord) -> Bool {
        enqueue(content, waiter: nil)
    }

    /// What a publish does for a content its release lists: requests its variants when they
    /// are made in the background (``VariantConfiguration/background``), else waits for them.
    func prepare(_ content: BlobRecord) async {
        if variants.background { request(content) } else { _ = await make(of: content) }
    }

    /// Makes `content`'s variants, queued as ``request(_:)`` does, and returns once they are
    /// recorded: whether any was kept.
    func make(of content: BlobRecord) async -> Bool {
        await withCheckedContinuation { waiter in
            if !enqueue(content, waiter: waiter) { waiter.resume(returning: false) }
        }
    }

    private func enqueue(_ content: BlobRecord, waiter: CheckedContinuation<Bool, Never>?) -> Bool {
        guard variants.makesVariants(ofSize: content.size) else { return false }
        enum Admission {
            case joined, closed
            case queued(waiting: Int)
            case full(first: Bool)
        }
        let admission = queue.withLock { queue -> Admission in
            if queue.closed { return .closed }
            if queue.waiting[content.sha256] != nil {
                if let waiter { queue.waiting[content.sha256]!.append(waiter) }
                return .joined
            }
            guard queue.waiting.count < maximumPending else {
                defer { queue.overflowed = true }
                return .full(first: !queue.overflowed)
            }
            queue.waiting[content.sha256] = waiter.map { [$0] } ?? []
            return .queued(waiting: queue.waiting.count)
        }
        switch admission {
        case .joined: return true
        case .closed: return false
        case .full(let first):
            refused(content, first: first)
            return false
        case .queued(let waiting):
            counts.withLock { $0.mostPending = max($0.mostPending, waiting) }
            metrics?.recordQueue(waiting)
            requestInput.yield(content)
            return true
        }
    }

    /// Counts a request the full queue refused; the first of an overflow is logged (the rest
    /// would flood the log), and the catalog is searched again once the queue drained.
    private func refused(_ content: BlobRecord, first: Bool) {
        counts.withLock { $0.refused += 1 }
        metrics?.recordRefusal()
        guard first else { return }
        logger.warning(
            "Variant queue full: requests refused until it drains, then contents lacking variants are found again",
            metadata: ["maximumPending": "\(maximumPending)", "sha256": "\(content.sha256)"]
        )
    }

    func run() async throws {
        let encoder = NIOThreadPool(numberOfThreads: 1)
        encoder.start()
        await withGracefulShutdownHandler {
            await takeUpLacking()
            for await content in requests {
                if queue.withLock({ $0.closed }) { break }
                let kept = await makeNow(content, on: encoder)
                let (waiters, retake, waiting) = queue.withLock { queue in
                    let waiters = queue.waiting.removeValue(forKey: content.sha256) ?? []
                    let retake = queue.waiting.isEmpty && queue.overflowed
                    if retake { queue.overflowed = false }
                    return (waiters, retake, queue.waiting.count)
                }
                metrics?.recordQueue(waiting)
                for waiter in waiters { waiter.resume(returning: kept) }
                if retake { await takeUpLacking() }
            }
        } onGracefulShutdown: {
            self.queue.withLock { $0.closed = true }
            self.requestInput.finish()
        }
        let waiting = queue.withLock { queue in
            queue.closed = true
            defer { queue.waiting = [:] }
            return queue.waiting.values.flatMap { $0 }
        }
        for waiter in waiting { waiter.resume(returning: false) }
        try await encoder.shutdownGracefully()
    }

    /// Queues the contents a channel lists that lack a variant of a coding turned on.
    private func takeUpLacking() async {
        guard !variants.encodings.isEmpty else { return }
        do {
            let lacking = try await blobs.contentsLackingVariants(
                codings: variants.encodings.count,
                sizes: variants.minimumBytes...variants.maximumBytes,
                limit: maximumPending
            )
            for record in try await blobs.blobRecords(lacking).values { request(record) }
        } catch {
            logger.error("Finding contents that lack variants failed", metadata: ["error": "\(error)"])
        }
    }

    /// Samples `content`, then makes and records the variants it lacks, one after the other,
    /// on `encoder`'s thread; each kept only where ``VariantConfiguration/keeps(size:contentSize:gzipSize:)``
    /// says so, and recorded either way, so that none is made twice. Failures are logged: a
    /// release without variants is still correct, clients download gzip. Returns whether it
    /// kept any.
    private func makeNow(_ content: BlobRecord, on encoder: NIOThreadPool) async -> Bool {
        do {
            let made = Set(try await blobs.contentVariants(of: content.sha256).map(\.coding))
            let wanted = variants.encodings.filter { !made.contains($0.coding) }
            guard !wanted.isEmpty else { return false }
            let path = store.path(forSHA256: content.sha256)
            let worthTrying = try await encoder.runIfActive { [variants, buffered] in
                Self.lowerPriority()
                return try Self.samples(of: path, size: content.size, held: buffered) {
                    variants.worthTrying(gzipSize: content.gzip?.size, samples: $0)
                }
            }
            guard worthTrying else {
                counts.withLock { $0.sampledOut += 1 }
                for encoding in wanted { try await record(encoding, of: content, stored: nil, settings: "sampled:\(encoding.settingsText)") }
                logger.info("No variants: its samples do not compress", metadata: ["sha256": "\(content.sha256)", "size": "\(content.size)"])
                return false
            }
            var kept = false
            for encoding in wanted { kept = try await makeVariant(encoding, of: content, from: path, on: encoder) || kept }
            if kept { for observer in observers.withLock({ $0 }) { await observer(content.sha256) } }
            return kept
        } catch {
            logger.error("Making brotli and zstd variants failed", metadata: ["sha256": "\(content.sha256)", "error": "\(error)"])
            return false
        }
    }

    /// Encodes the content at `path` into a temporary file, stores the variant when it is
    /// kept, and records it; returns whether it was kept.
    private func makeVariant(
        _ encoding: VariantConfiguration.Encoding,
        of content: BlobRecord,
        from path: FilePath,
        on encoder: NIOThreadPool
    ) async throws -> Bool {
        counts.withLock { $0.encoded += 1 }
        let started = ContinuousClock.now
        let temporary = store.temporaryPath(extension: encoding.coding == .br ? "br" : "zst")
        let (size, stored): (Int64, ContentVariantRecord.Stored?)
        // Removed whatever happens, by a call that a cancelled task still makes: a shutdown
        // leaves no temporary file for the next start to call a leftover.
        defer { store.removeTemporary(temporary) }
        size = try await encoder.runIfActive { [self] in
            // A shutdown stops the encoding at the next chunk instead of waiting out the file.
            try Self.encode(
                path,
                size: content.size,
                with: try encoding.encoder(size: content.size),
                into: temporary,
                of: store,
                held: buffered,
                stops: { queue.withLock { $0.closed } },
                chunkRead: { chunkRead?() }
            )
        }
        if variants.keeps(size: size, contentSize: content.size, gzipSize: content.gzip?.size) {
            let blob = try await store.ingest(contentsOf: temporary, compresses: false)
            stored = .init(sha256: blob.sha256, size: blob.size)
        } else {
            stored = nil
        }
        let kept = stored != nil
        defer { if let stored { store.release(stored.sha256) } }
        try await record(encoding, of: content, stored: stored, settings: encoding.settingsText)
        logger.info(
            "Variant made",
            metadata: [
                "sha256": "\(content.sha256)", "coding": "\(encoding.coding.rawValue)", "settings": "\(encoding.settingsText)",
                "size": "\(size)", "content": "\(content.size)", "gzip": "\(content.gzip?.size ?? 0)", "kept": "\(kept)",
                "duration": "\(ContinuousClock.now - started)",
            ]
        )
        return kept
    }

    private func record(
        _ encoding: VariantConfiguration.Encoding,
        of content: BlobRecord,
        stored: ContentVariantRecord.Stored?,
        settings: String
    )
        async throws
    {
        try await blobs.recordContentVariant(
            ContentVariantRecord(sha256: content.sha256, coding: encoding.coding, stored: stored, settings: settings),
            now: .now()
        )
    }
}
