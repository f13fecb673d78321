import DepotCodecs
import DepotConnection
import DepotHTTP
import DepotStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import SystemPackage

/// Makes the brotli and zstd variants of large content (``VariantConfiguration``), once, from
/// the stored file, so that every client that decodes one downloads fewer bytes than gzip's:
/// for a publish (``PatchMaker``) and for the public folder (``PublicSite``).
///
/// Each variant is encoded on a thread of its own (NIO's blocking pool carries every file read
/// and write of the server, which must not wait behind brotli at quality 11), stored as a blob
/// and recorded. A crash on the way leaves at most an unreferenced blob, which collection
/// removes.
final class VariantMaker: Sendable {
    let catalog: Catalog
    let store: BlobStore
    let variants: VariantConfiguration
    let logger: Logger
    /// One thread a coding, so a content's two variants are made at once.
    private let encoder = NIOThreadPool(numberOfThreads: 2)

    init(catalog: Catalog, store: BlobStore, variants: VariantConfiguration, logger: Logger) {
        self.catalog = catalog
        self.store = store
        self.variants = variants
        self.logger = logger
        encoder.start()
    }

    /// Stops the threads, once what they do is done.
    func shutdown() async throws {
        try await encoder.shutdownGracefully()
    }

    /// Makes and records the variants `content` lacks, when it is large enough: the two at once;
    /// kept only where ``VariantConfiguration/keeps(size:contentSize:gzipSize:)`` says so, and
    /// recorded either way, so that none is made twice. Failures are logged: a release without
    /// variants is still correct, clients download gzip. Returns whether it kept any.
    @discardableResult
    func make(of content: BlobRecord) async -> Bool {
        guard variants.makesVariants(ofSize: content.size) else { return false }
        do {
            let made = Set(try await catalog.contentVariants(of: content.sha256).map(\.coding))
            let wanted = variants.encodings.filter { !made.contains($0.coding) }
            guard !wanted.isEmpty else { return false }
            let path = store.path(forSHA256: content.sha256).string
            let bytes = try await encoder.runIfActive { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)) }
            guard Int64(bytes.count) == content.size else {
                throw StoreError(.io, "The stored file of \(content.sha256) is not \(content.size) bytes")
            }
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                for encoding in wanted {
                    group.addTask { try await self.makeVariant(encoding, of: content, bytes: bytes) }
                }
                return try await group.reduce(false) { $0 || $1 }
            }
        } catch {
            logger.error("Making brotli and zstd variants failed", metadata: ["sha256": "\(content.sha256)", "error": "\(error)"])
            return false
        }
    }

    /// Encodes `bytes`, the content, stores the variant when it is kept, and records it;
    /// returns whether it was kept.
    private func makeVariant(_ encoding: VariantConfiguration.Encoding, of content: BlobRecord, bytes: [UInt8]) async throws -> Bool {
        let started = ContinuousClock.now
        let encoded = try await encoder.runIfActive { try encoding.encode(bytes) }
        let kept = variants.keeps(size: Int64(encoded.count), contentSize: content.size, gzipSize: content.gzip?.size)
        var stored: ContentVariantRecord.Stored?
        if kept {
            let blob = try await store.ingest(
                AsyncStream {
                    $0.yield(ByteBuffer(bytes: encoded))
                    $0.finish()
                },
                compresses: false
            )
            stored = .init(sha256: blob.sha256, size: blob.size)
        }
        defer { if let stored { store.release(stored.sha256) } }
        try await catalog.recordContentVariant(
            ContentVariantRecord(sha256: content.sha256, coding: encoding.coding, stored: stored, settings: encoding.settingsText),
            now: .now()
        )
        logger.info(
            "Variant made",
            metadata: [
                "sha256": "\(content.sha256)", "coding": "\(encoding.coding.rawValue)", "settings": "\(encoding.settingsText)",
                "size": "\(encoded.count)",
                "content": "\(content.size)", "gzip": "\(content.gzip?.size ?? 0)", "kept": "\(kept)", "duration": "\(ContinuousClock.now - started)",
            ]
        )
        return kept
    }
}
