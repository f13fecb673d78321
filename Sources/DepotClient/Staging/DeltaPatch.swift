import DepotDelta
import Foundation

/// Applies a gzip-compressed VCDIFF patch (what the server stores under `/deltas/`) to a file.
public enum DeltaPatch {
    /// Writes to `output` the file that `patch` (gzip-compressed VCDIFF) makes of `base`.
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
        let handle = try Durability.open(output, truncating: true)
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
