import DepotDelta
import DepotFiles
import _NIOFileSystem

/// Makes the block index of a stored content (``DepotDelta/BlockIndex``) and writes its packed
/// blocks to a file, reading the content once in pieces: memory stays at one piece whatever
/// the size. Blocking: run it on a thread pool.
public enum BlockIndexMaker {
    /// Returns the index's bytes; the packed blocks are in the new file `packed` of `folder`
    /// after (emptied when there is one; a link there is refused).
    public static func make(content: String, packed name: String, in folder: ContainedFolder, blockSize: Int) throws -> [UInt8] {
        let reader = try BlockingFileReader(path: content)
        let packed = BlockingFileWriter(descriptor: try folder.open(name, mode: .truncate), path: "\(folder.root)/\(name)")
        var builder = try BlockIndexBuilder(blockSize: blockSize)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { break }
            try builder.append(UnsafeRawBufferPointer(rebasing: chunk[0..<count])) { try packed.write($0) }
            if count < chunk.count { break }
        }
        return try builder.finish { try packed.write($0) }.encoded()
    }
}

extension BlockIndexMaker {
    /// ``make(content:packed:in:blockSize:)`` into a new temporary file of `store`
    /// (``BlobStore/temporaryPath(extension:)``), which the caller removes
    /// (``BlobStore/removeTemporary(_:)``); returns the index's bytes and that file's path.
    public static func make(content: String, temporaryIn store: BlobStore, blockSize: Int) throws -> (index: [UInt8], packedPath: FilePath) {
        let path = store.temporaryPath(extension: "zblocks")
        do {
            return (try make(content: content, packed: try store.name(of: path), in: try store.dataFolder(), blockSize: blockSize), path)
        } catch {
            store.removeTemporary(path)
            throw error
        }
    }
}
