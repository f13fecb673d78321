import DepotDelta
import Foundation

/// Applies a gzip-compressed VCDIFF patch (what the server stores under `/deltas/`) to a file.
public enum DeltaPatch {
    /// Writes to `output` the file that `patch` (gzip-compressed VCDIFF) makes of `base`: files
    /// named on `depot delta apply`'s command line, opened as given (a link there is the
    /// operator's). A sync's files go through its folder instead
    /// (the same, of ``FolderFile``s).
    ///
    /// - Parameter maximumSize: The size the result may reach; the patch can ask for no more
    ///   memory or output than this allows.
    public static func apply(base: URL, patch: URL, output: URL, maximumSize: Int) throws {
        let compressed: Data
        let source: Data
        do {
            compressed = try Data(contentsOf: patch)
            source = try Data(contentsOf: base, options: .alwaysMapped)
        } catch {
            throw SyncError(.io, "cannot read the delta or its base: \(error.localizedDescription)")
        }
        let descriptor = Foundation.open(output.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SyncError(.io, "cannot write \(output.path): errno \(errno)") }
        try apply(compressed, to: source, into: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), maximumSize: maximumSize)
    }

    /// Writes to `output` the file that `patch` (gzip-compressed VCDIFF) makes of `base`, three
    /// files of the sync folder, each opened through its descriptor (no link followed). The base
    /// and the patch are mapped, not read into memory.
    ///
    /// - Parameter maximumSize: The size the result may reach.
    static func apply(base: FolderFile, patch: FolderFile, output: FolderFile, maximumSize: Int) throws {
        let compressed: Data
        let source: Data
        do {
            guard let patchBytes = try patch.mapped(), let baseBytes = try base.mapped() else {
                throw SyncError(.io, "the delta or its base is missing")
            }
            (compressed, source) = (patchBytes, baseBytes)
        } catch let error as SyncError {
            throw SyncError(.io, "cannot read the delta or its base: \(error.message)")
        }
        try apply(compressed, to: source, into: try output.writing(truncating: true), maximumSize: maximumSize)
    }

    /// Writes what `compressed` makes of `source` to `handle`, then closes it.
    private static func apply(_ compressed: Data, to source: Data, into handle: FileHandle, maximumSize: Int) throws {
        defer { try? handle.close() }
        var target = FileOutput(handle: handle)
        try refusingBadPatches {
            try compressed.withUnsafeBytes { patch in
                try source.withUnsafeBytes { try GzipVCDIFF.apply(patch, source: $0, into: &target, maximumTargetSize: maximumSize) }
            }
        }
    }

    /// What `patch` (gzip-compressed VCDIFF) makes of `base`, in memory: for documents.
    ///
    /// - Parameter maximumSize: The size the result may reach.
    public static func apply(_ patch: Data, to base: Data, maximumSize: Int) throws -> Data {
        try refusingBadPatches {
            try patch.withUnsafeBytes { patch in
                try base.withUnsafeBytes { Data(try GzipVCDIFF.apply(patch, source: $0, maximumTargetSize: maximumSize)) }
            }
        }
    }

    /// Runs `body`, turning a damaged or hostile patch into ``SyncError`` `.corrupt`, and any
    /// other failure (writing the result) into `.io`.
    private static func refusingBadPatches<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as VCDIFFError {
            throw SyncError(.corrupt, "the delta cannot be applied: \(error.message)")
        } catch let error as GzipError {
            throw SyncError(.corrupt, "the delta cannot be applied: \(error.message)")
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.io, "cannot write the patched file: \(error.localizedDescription)")
        }
    }
}

/// Decoded windows go straight to a file, which is read back only for `VCD_TARGET` windows.
private struct FileOutput: VCDIFFOutput {
    let handle: FileHandle
    var count = 0

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try handle.seek(toOffset: UInt64(count))
        try handle.write(contentsOf: Data(bytes))
        count += bytes.count
    }

    func read(from offset: Int, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: count) ?? Data()
        try handle.seek(toOffset: UInt64(self.count))
        guard data.count == count else { throw VCDIFFError(.corrupt, "cannot read back \(count) bytes of the target") }
        return Array(data)
    }
}
