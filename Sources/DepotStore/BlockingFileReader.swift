#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file read with blocking `read(2)` calls, for work that already runs on a thread pool.
struct BlockingFileReader: ~Copyable {
    private let descriptor: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(.io, "Cannot open \(path): errno \(errno)") }
    }

    deinit { close(descriptor) }

    /// Fills `buffer` as far as the file allows; returns how many bytes were read (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = SystemRead(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StoreError(.io, "Cannot read \(path): errno \(errno)") }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// The whole file; throws ``StoreError/Code/tooLarge`` before reading anything when it is
    /// larger than `maximumSize`.
    static func contents(of path: String, maximumSize: Int) throws -> [UInt8] {
        let reader = try BlockingFileReader(path: path)
        let size = Int(lseek(reader.descriptor, 0, SEEK_END))
        guard size >= 0, lseek(reader.descriptor, 0, SEEK_SET) == 0 else {
            throw StoreError(.io, "Cannot find the size of \(path): errno \(errno)")
        }
        guard size <= maximumSize else { throw StoreError(.tooLarge, "\(path) has \(size) bytes, more than \(maximumSize)") }
        return try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = try reader.read(into: UnsafeMutableRawBufferPointer(buffer))
        }
    }
}
