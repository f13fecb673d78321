import NIOCore
import _NIOFileSystem

/// The content of a ``DirectResponder`` answer: a slice of bytes held in memory, or a region of
/// an open file that the kernel copies to the socket (`sendfile(2)` through NIO's `FileRegion`),
/// so a download of any size costs neither a buffer nor a copy in the server.
enum DirectBody {
    case bytes(ByteBuffer)
    case file(OpenFile, FileRegion)

    /// The bytes `range` of `storage`; `nil` when the file cannot be opened (collected since the
    /// resource was resolved), and the request is then left to Hummingbird.
    ///
    /// The file is taken from `files`, on the event loop, as nginx opens files on its worker:
    /// stored files are local, so `open(2)` finds the inode in the kernel's caches.
    init?(content: DirectAnswer.Content, range: ClosedRange<Int64>, files: OpenFileCache) {
        switch content {
        case .bytes(let content):
            self = .bytes(content.getSlice(at: Int(range.lowerBound), length: Int(range.upperBound - range.lowerBound + 1))!)
        case .file(let path):
            guard let file = files.open(path) else { return nil }
            self = .file(file, FileRegion(fileHandle: file.handle, readerIndex: Int(range.lowerBound), endIndex: Int(range.upperBound) + 1))
        }
    }

    /// Passes the content as body parts: a file region in pieces of at most `length` bytes (each
    /// its own `sendfile(2)` write, whose completion can be counted), bytes in memory as one.
    func forEachPiece(ofLength length: Int, _ body: (IOData) -> Void) {
        switch self {
        case .bytes(let buffer):
            body(.byteBuffer(buffer))
        case .file(_, let region):
            var start = region.readerIndex
            repeat {
                // `length` may be Int.max: what is left is compared, never `start + length`.
                let end = region.endIndex - start > length ? start + length : region.endIndex
                body(.fileRegion(FileRegion(fileHandle: region.fileHandle, readerIndex: start, endIndex: end)))
                start = end
            } while start < region.endIndex
        }
    }

    /// How many bytes it holds.
    var length: Int64 {
        switch self {
        case .bytes(let buffer): Int64(buffer.readableBytes)
        case .file(_, let region): Int64(region.readableBytes)
        }
    }

    /// Whether the bytes come from a file, by `sendfile(2)`.
    var isFile: Bool {
        if case .file = self { true } else { false }
    }

    /// Gives the file back, once the region is written or the write has failed.
    func close() {
        if case .file(let file, _) = self { file.release() }
    }
}
