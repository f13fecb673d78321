import DepotDelta

/// Makes the block index of a stored content (``DepotDelta/BlockIndex``) and writes its packed
/// blocks to a file, reading the content once in pieces: memory stays at one piece whatever
/// the size. Blocking: run it on a thread pool.
public enum BlockIndexMaker {
    /// Returns the index's bytes; the packed blocks are at `packedPath` after.
    public static func make(content: String, packedPath: String, blockSize: Int) throws -> [UInt8] {
        let reader = try BlockingFileReader(path: content)
        let packed = try BlockingFileWriter(creating: packedPath)
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
