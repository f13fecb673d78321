import DepotFiles
import NIOCore
import NIOPosix
import Synchronization
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file of the store being written (a blob's content or gzip variant in `tmp/`), made
/// through the data folder (``BlobStore/createFile(_:)``: no link followed) and written by its
/// descriptor on NIO's thread pool. Closed once, whichever way its writer ends: ``close()`` may
/// be called again, and on any thread (a cancelled task's), without closing a descriptor that
/// another file has since been given.
final class StoreFile: Sendable {
    let path: FilePath
    private let descriptor: Mutex<Int32?>

    /// Makes the file at `path` (below `store`'s data folder), empty, with Depot's file mode.
    init(creating path: FilePath, in store: BlobStore) throws {
        self.path = path
        descriptor = Mutex(try store.createFile(path))
    }

    deinit { close() }

    /// Writes `bytes` at the end of what was written, then asks the kernel to start writing
    /// them to disk (``SystemStartWriteback(_:offset:count:)``, `offset` being where they start).
    func write(_ bytes: ByteBuffer, at offset: Int64) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            try self.withDescriptor { file in
                var written = 0
                try bytes.withUnsafeReadableBytes { buffer in
                    while written < buffer.count {
                        let count = SystemWrite(file, buffer.baseAddress! + written, buffer.count - written)
                        if count < 0, errno == EINTR { continue }
                        guard count > 0 else { throw SystemCallError("Cannot write \(self.path)") }
                        written += count
                    }
                }
                SystemStartWriteback(file, offset: offset, count: Int64(bytes.readableBytes))
            }
        }
    }

    /// `fsync(2)` (``DepotFiles/Durability``), on NIO's thread pool: what was written is on the
    /// disk.
    func synchronize() async throws {
        try await NIOThreadPool.singleton.runIfActive {
            try self.withDescriptor { file in
                try storeCall { try Durability.synchronize(descriptor: file, name: self.path.string) }
            }
        }
    }

    /// Closes the file, here, if it is still open.
    func close() {
        descriptor.withLock { open in
            if let file = open { _ = systemClose(file) }
            open = nil
        }
    }

    private func withDescriptor<Result>(_ body: (Int32) throws -> Result) throws -> Result {
        try descriptor.withLock { open in
            guard let file = open else { throw StoreError(.io, "\(path) is closed already") }
            return try body(file)
        }
    }
}

/// `close(2)`, under a name ``StoreFile/close()`` does not shadow.
@inline(__always)
private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
