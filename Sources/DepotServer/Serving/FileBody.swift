import Hummingbird
import NIOCore
import _NIOFileSystem

/// A response body made of literal bytes and ranges of a variant's content. File content is
/// streamed with the writer's backpressure so that memory stays bounded whatever the file's size.
///
/// Built on the same primitive as Hummingbird's `FileIO.readFile` (`readChunks` into a
/// `ResponseBody(contentLength:)`), driven by Depot's own decisions.
struct FileBody {
    enum Segment {
        case bytes(ByteBuffer)
        case file(ClosedRange<Int64>)
    }

    static let chunkLength: ByteCount = .kibibytes(128)

    static func make(storage: Resource.Storage, segments: [Segment], contentLength: Int64, fileSystem: FileSystem) -> ResponseBody {
        switch storage {
        case .file(let path):
            make(file: path, segments: segments, contentLength: contentLength, fileSystem: fileSystem)
        case .bytes(let content):
            ResponseBody(
                contentsOf: segments.map { segment in
                    switch segment {
                    case .bytes(let buffer): buffer
                    case .file(let range): content.getSlice(at: Int(range.lowerBound), length: Int(range.upperBound - range.lowerBound + 1))!
                    }
                }
            )
        }
    }

    static func make(file: FilePath, segments: [Segment], contentLength: Int64, fileSystem: FileSystem) -> ResponseBody {
        ResponseBody(contentLength: Int(contentLength)) { writer in
            try await fileSystem.withFileHandle(forReadingAt: file) { handle in
                for segment in segments {
                    switch segment {
                    case .bytes(let buffer):
                        try await writer.write(buffer)
                    case .file(let range):
                        for try await chunk in handle.readChunks(in: range.lowerBound..<(range.upperBound + 1), chunkLength: chunkLength) {
                            try await writer.write(chunk)
                        }
                    }
                }
            }
            try await writer.finish(nil)
        }
    }
}
