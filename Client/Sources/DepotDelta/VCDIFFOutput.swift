/// Where a ``VCDIFFDecoder`` writes the target it rebuilds.
///
/// The decoder appends each window as it finishes it. It reads earlier output back only for a
/// window whose source segment is in the target (`VCD_TARGET`), which Depot's encoder never
/// writes but other encoders may.
public protocol VCDIFFOutput {
    /// How many bytes have been written.
    var count: Int { get }
    /// Appends the bytes of one decoded window.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Returns `count` bytes written earlier, from `offset`.
    func read(from offset: Int, count: Int) throws -> [UInt8]
}

extension Array: VCDIFFOutput where Element == UInt8 {
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        append(contentsOf: bytes)
    }

    public func read(from offset: Int, count: Int) throws -> [UInt8] {
        Array(self[offset..<offset + count])
    }
}
