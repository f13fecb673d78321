import DepotDelta
import DepotFiles
import NIOCore
import NIOPosix

/// Makes the block index of an upload while it is being stored
/// (``BlobStore/ingest(_:compresses:indexing:verify:)``): each batch the writer takes is also
/// indexed on NIO's thread pool, beside the writer's hashing and compression and in step with
/// them. The result is the bytes ``BlockIndexMaker`` makes from the stored file, without reading
/// the file again after the upload, nor waiting for that.
///
/// The index is a help, not a part of the upload: a tap that cannot write (a full disk) stops
/// indexing and lets the upload go on; ``finish()`` then throws, and the index is made from the
/// stored file later, as for any upload.
///
/// Used by one writer, one batch at a time; the caller removes the packed blocks when done
/// (``removePacked()``).
public final class BlockIndexTap: @unchecked Sendable {
    /// Where the packed blocks are written.
    public let packedPath: String
    /// The folder they are written in, and their name there.
    private let folder: ContainedFolder
    private let name: String
    private var builder: BlockIndexBuilder
    private let packed: BlockingFileWriter
    /// Why indexing stopped, if it did.
    private var failure: (any Error)?

    /// Writes the packed blocks to the new file `name` of `folder` (emptied when there is one;
    /// a link there is refused).
    ///
    /// - Parameter blockSize: One of ``DepotDelta/BlockIndex/blockSizes``.
    public init(packed name: String, in folder: ContainedFolder, blockSize: Int) throws {
        builder = try BlockIndexBuilder(blockSize: blockSize)
        packedPath = "\(folder.root)/\(name)"
        packed = BlockingFileWriter(descriptor: try folder.open(name, mode: .truncate), path: packedPath)
        self.folder = folder
        self.name = name
    }

    /// Writes the packed blocks to a new temporary file of `store` (``BlobStore/temporaryPath(extension:)``).
    public convenience init(in store: BlobStore, blockSize: Int) throws {
        let path = store.temporaryPath(extension: "zblocks")
        try self.init(packed: try store.name(of: path), in: try store.dataFolder(), blockSize: blockSize)
    }

    /// Removes the packed blocks' file, if any.
    public func removePacked() {
        try? folder.remove(name)
    }

    /// Takes the content's next bytes, on NIO's thread pool; after a failure, none.
    func append(_ bytes: ByteBuffer) async {
        guard failure == nil else { return }
        do {
            try await NIOThreadPool.singleton.runIfActive {
                try bytes.withUnsafeReadableBytes { bytes in
                    try self.builder.append(bytes) { try self.packed.write($0) }
                }
            }
        } catch {
            failure = error
        }
    }

    /// Ends the content; returns the index (``DepotDelta/BlockIndex/encoded()``). The packed
    /// blocks are then whole at ``packedPath``. Throws why indexing stopped, if it did.
    public func finish() throws -> [UInt8] {
        if let failure { throw failure }
        return try builder.finish { try packed.write($0) }.encoded()
    }
}
