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

/// The block indexes of large content (``BlockIndexMaker``), made as an upload arrives or from
/// the stored file, so that a client with a changed copy fetches only the blocks it lacks.
extension PatchMaker {
    /// Makes the block index of an uploaded blob before a commit names it, and requests its
    /// variants (made before too, unless in the background: ``VariantMaker/prepare(_:)``), so
    /// that the commit does not wait for them: the upload of one large file overlaps the
    /// batches of small ones. Failures are logged; the commit tries again.
    ///
    /// - Parameter index: The index made as the blob arrived, if it was; the caller removes its
    ///   file.
    func prepareUpload(_ content: BlobRecord, index: BlockIndexTap? = nil) async {
        await variants.prepare(content)
        do {
            try await makeBlockIndex(of: content, tapped: index)
        } catch {
            logger.error("Making a block index failed", metadata: ["sha256": "\(content.sha256)", "error": "\(error)"])
        }
    }

    /// Makes and records the block index of `content` when it is large enough and has none:
    /// from `tapped` when it was made as the content arrived, else from the stored file.
    func makeBlockIndex(of content: BlobRecord, tapped: BlockIndexTap? = nil) async throws {
        guard configuration.indexesBlocks(ofSize: content.size), try await blobs.blockIndex(of: content.sha256) == nil else { return }
        let started = ContinuousClock.now
        let index: [UInt8]
        let packedPath: FilePath
        if let tapped {
            index = try tapped.finish()
            packedPath = FilePath(tapped.packedPath)
        } else {
            let contentPath = store.path(forSHA256: content.sha256).string
            let blockSize = configuration.blockSize
            (index, packedPath) = try await encoder.runIfActive { [store] in
                try BlockIndexMaker.make(content: contentPath, temporaryIn: store, blockSize: blockSize)
            }
        }
        defer { if tapped == nil { store.removeTemporary(packedPath) } }
        let packed = try await store.ingest(contentsOf: packedPath, compresses: false)
        defer { store.release(packed.sha256) }
        let indexBlob = try await store.ingest(
            AsyncStream {
                $0.yield(ByteBuffer(bytes: index))
                $0.finish()
            },
            compresses: false
        )
        defer { store.release(indexBlob.sha256) }
        try await blobs.recordBlockIndex(
            BlockIndexRecord(
                sha256: content.sha256,
                indexSHA256: indexBlob.sha256,
                indexSize: indexBlob.size,
                packedSHA256: packed.sha256,
                packedSize: packed.size
            ),
            now: .now()
        )
        logger.info(
            "Block index made",
            metadata: [
                "sha256": "\(content.sha256)", "index": "\(indexBlob.size)", "packed": "\(packed.size)",
                "duration": "\(ContinuousClock.now - started)", "whileReceived": "\(tapped != nil)",
            ]
        )
    }
}
