import DepotCodecs
import DepotConnection
import DepotHTTP
import DepotStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import SystemPackage

/// The brotli and zstd variants of large content (``VariantConfiguration``), made once from the
/// stored file, so that every client that decodes one downloads fewer bytes than gzip's.
extension PatchMaker {
    /// Makes and records the variants `content` lacks, when it is large enough: each on a thread
    /// of ``variantEncoder``, the two at once; kept only where ``VariantConfiguration/keeps(size:contentSize:gzipSize:)``
    /// says so, and recorded either way, so that none is made twice. Failures are logged: a
    /// release without variants is still correct, clients download gzip.
    func makeVariants(of content: BlobRecord) async {
        guard variants.makesVariants(ofSize: content.size) else { return }
        do {
            let made = Set(try await catalog.contentVariants(of: content.sha256).map(\.coding))
            let wanted = variants.encodings.filter { !made.contains($0.coding) }
            guard !wanted.isEmpty else { return }
            let path = store.path(forSHA256: content.sha256).string
            let bytes = try await variantEncoder.runIfActive { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)) }
            guard Int64(bytes.count) == content.size else {
                throw StoreError(.io, "The stored file of \(content.sha256) is not \(content.size) bytes")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for encoding in wanted {
                    group.addTask { try await self.makeVariant(encoding, of: content, bytes: bytes) }
                }
                try await group.waitForAll()
            }
        } catch {
            logger.error("Making brotli and zstd variants failed", metadata: ["sha256": "\(content.sha256)", "error": "\(error)"])
        }
    }

    /// Encodes `bytes`, the content, stores the variant when it is kept, and records it.
    private func makeVariant(_ encoding: VariantConfiguration.Encoding, of content: BlobRecord, bytes: [UInt8]) async throws {
        let started = ContinuousClock.now
        let encoded = try await variantEncoder.runIfActive { try encoding.encode(bytes) }
        let kept = variants.keeps(size: Int64(encoded.count), contentSize: content.size, gzipSize: content.gzip?.size)
        var stored: (sha256: String, size: Int64)?
        if kept {
            let blob = try await store.ingest(
                AsyncStream {
                    $0.yield(ByteBuffer(bytes: encoded))
                    $0.finish()
                },
                compresses: false
            )
            stored = (blob.sha256, blob.size)
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
    }
}
