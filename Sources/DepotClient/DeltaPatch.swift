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
        let delta = try inflate(compressed, maximumSize: maximumSize)

        try Durability.write(Data(), to: output)
        guard let handle = try? FileHandle(forUpdating: output)
        else { throw SyncError(.io, "cannot create \(output.path)") }
        defer { try? handle.close() }
        var target = FileOutput(handle: handle)
        do {
            try delta.withUnsafeBytes { delta in
                try source.withUnsafeBytes { source in
                    try VCDIFFDecoder.decode(
                        delta,
                        source: source,
                        into: &target,
                        limits: .init(maximumWindowSize: min(64 << 20, max(1, maximumSize)), maximumTargetSize: maximumSize)
                    )
                }
            }
        } catch let error as VCDIFFError {
            throw SyncError(.corrupt, "the delta cannot be applied: \(error.message)")
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.io, "cannot write \(output.path): \(error.localizedDescription)")
        }
    }

    /// What `patch` (gzip-compressed VCDIFF) makes of `base`, in memory: for documents.
    ///
    /// - Parameter maximumSize: The size the result may reach.
    public static func apply(_ patch: Data, to base: Data, maximumSize: Int) throws -> Data {
        let delta = try inflate(patch, maximumSize: maximumSize)
        do {
            return Data(
                try VCDIFFDecoder.decode(
                    delta,
                    source: Array(base),
                    limits: .init(maximumWindowSize: max(1, maximumSize), maximumTargetSize: maximumSize)
                )
            )
        } catch let error as VCDIFFError {
            throw SyncError(.corrupt, "the delta cannot be applied: \(error.message)")
        }
    }

    /// The VCDIFF inside a patch's gzip stream. A VCDIFF is never much larger than the target it
    /// makes; a stream that inflates beyond that is a bomb.
    private static func inflate(_ compressed: Data, maximumSize: Int) throws -> [UInt8] {
        let rawLimit = maximumSize + maximumSize / 8 + (1 << 20)
        var delta: [UInt8] = []
        let decoder = try GzipDecoder()
        try decoder.decode(compressed) { piece in
            guard delta.count + piece.count <= rawLimit else { throw SyncError(.corrupt, "the delta inflates past \(rawLimit) bytes") }
            delta.append(contentsOf: piece)
        }
        guard decoder.isFinished else { throw SyncError(.corrupt, "the delta's gzip stream is truncated") }
        return delta
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
