import DepotCodecs
import DepotDelta
import DepotStore
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the variant maker's thread does: blocking reads of the stored file, in chunks.
extension VariantMaker {
    /// How much of the file is read at a time.
    static let chunkSize = 1 << 20

    /// Gives the calling thread the lowest CPU priority (nice 19), so that encoding takes the
    /// cores only when the threads that answer clients leave them idle. On Linux a thread's
    /// nice value is its own (`setpriority(PRIO_PROCESS, 0, …)` changes the calling thread);
    /// elsewhere, where it would change the whole process, nothing is done.
    static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }

    /// What `judge` says of the samples of the `size`-byte file at `path`
    /// (``VariantConfiguration/sampleOffsets(size:)``), their buffers counted in `held`.
    static func samples<T>(
        of path: FilePath,
        size: Int64,
        held: BufferedBytes = BufferedBytes(),
        _ judge: ([UnsafeRawBufferPointer]) -> T
    ) throws -> T {
        let file = try FileDescriptor.open(path, .readOnly)
        let offsets = VariantConfiguration.sampleOffsets(size: size)
        return try held.holding(offsets.count * CompressionSample.sampleSize) {
            try file.closeAfter {
                let samples = try offsets.map { offset in
                    var sample = [UInt8](repeating: 0, count: CompressionSample.sampleSize)
                    let read = try sample.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: offset, into: $0) }
                    sample.removeSubrange(read...)
                    return sample
                }
                return withSamples(samples, judge)
            }
        }
    }

    /// `judge`'s answer on `samples` as raw buffers.
    private static func withSamples<T>(_ samples: [[UInt8]], _ judge: ([UnsafeRawBufferPointer]) -> T) -> T {
        var buffers: [UnsafeRawBufferPointer] = []
        func next(_ index: Int) -> T {
            guard index < samples.count else { return judge(buffers) }
            return samples[index].withUnsafeBytes { buffer in
                buffers.append(buffer)
                return next(index + 1)
            }
        }
        return next(0)
    }

    /// Streams the `size`-byte file at `path` through `encoder` into a new temporary file of
    /// `store` at `output` (``BlobStore/createTemporary(_:)``), a
    /// chunk at a time (the one buffer counted in `held`; `chunkRead` is called after each read),
    /// until `stops` says to stop; returns the encoded size.
    ///
    /// - Throws: ``CodecError``; `Errno` when a file cannot be read or written, or the file is
    ///   not `size` bytes; `CancellationError` once `stops` is true.
    static func encode(
        _ path: FilePath,
        size: Int64,
        with encoder: any StreamEncoder,
        into output: FilePath,
        of store: BlobStore,
        held: BufferedBytes = BufferedBytes(),
        stops: () -> Bool = { false },
        chunkRead: () -> Void = {}
    ) throws -> Int64 {
        let source = try FileDescriptor.open(path, .readOnly)
        return try source.closeAfter {
            let target = FileDescriptor(rawValue: try store.createTemporary(output))
            return try target.closeAfter {
                var written: Int64 = 0
                let write = { (piece: UnsafeRawBufferPointer) in written += Int64(try target.writeAll(piece)) }
                let read = try held.holding(chunkSize) {
                    var chunk = [UInt8](repeating: 0, count: chunkSize)
                    var read: Int64 = 0
                    while true {
                        guard !stops() else { throw CancellationError() }
                        let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                        guard count > 0 else { break }
                        read += Int64(count)
                        chunkRead()
                        try chunk.withUnsafeBytes { try encoder.encode(UnsafeRawBufferPointer(rebasing: $0[..<count]), output: write) }
                    }
                    return read
                }
                guard read == size else { throw StoreError(.io, "The stored file \(path) is \(read) bytes, not \(size)") }
                try encoder.finish(output: write)
                return written
            }
        }
    }
}
